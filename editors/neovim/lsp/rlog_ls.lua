-- Neovim 0.11+: with this folder on 'runtimepath', vim.lsp.enable('rlog_ls')
-- starts rlog-ls for rlog buffers (views of session files included, rooted
-- where the file is), and for a log's companion (NAME.jsonl or NAME.json
-- beside NAME.rlog, and subagent files) for Go to Definition and hover back
-- to the log; other JSON files are left alone.
local function log_or_companion(bufnr)
  if vim.bo[bufnr].filetype == 'rlog' then return true end
  local ok, rlog = pcall(require, 'rlog')
  return ok and rlog.log_of(vim.api.nvim_buf_get_name(bufnr)) ~= nil
end

return {
  cmd = { 'rlog-ls' },
  filetypes = { 'rlog', 'json', 'jsonl' },
  -- Neovim starts the server only when on_dir is called: for logs and
  -- companions, at the folder holding .git above the file, else the file's.
  root_dir = function(bufnr, on_dir)
    if not log_or_companion(bufnr) then return end
    local file = vim.api.nvim_buf_get_name(bufnr)
    local ok, rlog = pcall(require, 'rlog')
    file = ok and rlog.view_source(file) or file
    local dir = vim.fn.fnamemodify(file, ':p:h')
    local git = vim.fn.finddir('.git', dir .. ';')
    if git == '' then git = vim.fn.findfile('.git', dir .. ';') end
    on_dir(git ~= '' and vim.fn.fnamemodify(git, ':p:h:h') or dir)
  end,
  settings = { rlog = {} },
  handlers = {
    -- The edits that keep a view (:RlogView) up to date.
    ['rlog/sessionViewChanged'] = function(...)
      local ok, rlog = pcall(require, 'rlog')
      if ok then return rlog.on_view_changed(...) end
    end,
  },
}
