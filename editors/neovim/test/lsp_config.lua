-- lsp/rlog_ls.lua's root_dir, as Neovim 0.11's vim.lsp.enable calls it, for
-- each file given on the command line: the root it starts the server at, or
-- none, and for the view RLOG_VIEW names. Writes JSON to RLOG_OUT:
-- {file or view: root or ""}.
local cfg = dofile(vim.api.nvim_get_runtime_file('lsp/rlog_ls.lua', false)[1])
local out = {}
for _, file in ipairs(vim.fn.argv()) do
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local root = ''
  cfg.root_dir(bufnr, function(dir) root = dir end)
  out[vim.fn.fnamemodify(file, ':p')] = root
end
-- A view of a session file (:RlogView): rooted where the file is.
local view = os.getenv('RLOG_VIEW')
if view then
  vim.cmd('enew')
  local bufnr = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_name(bufnr, view)
  vim.bo[bufnr].filetype = 'rlog'
  local root = ''
  cfg.root_dir(bufnr, function(dir) root = dir end)
  out[view] = root
end
local f = assert(io.open(os.getenv('RLOG_OUT'), 'w'))
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qa!')
