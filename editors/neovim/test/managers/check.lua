-- After a plugin manager's startup (lazy_init.lua or packer_compiled.lua),
-- with an rlog file given on the command line: what the user gets. Writes
-- JSON to RLOG_OUT: the errors the manager reported, the buffer's file type,
-- syntax and ftplugin settings, where `require('rlog')` and lsp/rlog_ls.lua
-- come from, and whether rlog-ls (on PATH) attached and sent diagnostics.
local out = { errors = _G.rlog_manager_errors or {} }
local ok, err = pcall(function()
  local bufnr = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[bufnr].filetype
  out.syntax = vim.b[bufnr].current_syntax
  out.commentstring = vim.bo[bufnr].commentstring
  out.module = package.loaded['rlog'] and vim.api.nvim_get_runtime_file('lua/rlog/init.lua', false)[1] or nil
  out.lsp_config = vim.api.nvim_get_runtime_file('lsp/rlog_ls.lua', false)[1]
  if out.filetype ~= 'rlog' then return end
  out.attached = vim.wait(120000, function()
    for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if c.name == 'rlog-ls' and c.initialized then return true end
    end
    return false
  end, 50)
  vim.wait(120000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out.diagnostics, { lnum = d.lnum, code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) })
  end
  for _, c in pairs(vim.lsp.get_active_clients()) do c.stop() end
  vim.wait(3000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
end)
if not ok then table.insert(out.errors, tostring(err)) end
local f = assert(io.open(os.getenv('RLOG_OUT'), 'w'))
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qa!')
