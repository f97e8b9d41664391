-- Checks the plugin's language server setup in a real Neovim: with a server
-- binary, opening a log attaches rlog-ls and diagnostics arrive; with a
-- missing binary, the user is told how to install it. (What the server
-- answers is tested in e2e/; this checks the wiring in lua/rlog.)
-- Env: RLOG_LS (the binary), RLOG_FILE (a log), RLOG_OUT (JSON result).
local out = { errors = {} }
local function fail(msg) table.insert(out.errors, msg) end

local notes = {}
vim.notify = function(msg, level) table.insert(notes, { msg = msg, level = level }) end

local ok, err = pcall(function()
  -- A missing binary: a warning that says how to install the server.
  require('rlog').setup({ cmd = { '/nonexistent/rlog-ls' } })
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('RLOG_FILE')))
  out.filetype = vim.bo.filetype
  out.missing_message = notes[1] and notes[1].msg or nil
  out.missing_clients = #vim.lsp.get_active_clients()
  vim.cmd('bwipeout!')

  -- The real binary.
  require('rlog').setup({ cmd = { os.getenv('RLOG_LS') }, settings = { rlog = { disabledCodes = { 'I004' } } } })
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('RLOG_FILE')))
  local bufnr = vim.api.nvim_get_current_buf()
  local attached = vim.wait(120000, function()
    for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if c.name == 'rlog-ls' and c.initialized then return true end
    end
    return false
  end, 50)
  out.attached = attached
  local got = vim.wait(120000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  out.diagnostics = {}
  if got then
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      table.insert(out.diagnostics, { lnum = d.lnum, code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) })
    end
  end
  for _, c in pairs(vim.lsp.get_active_clients()) do c.stop() end
  vim.wait(3000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
end)
if not ok then fail(tostring(err)) end
local f = assert(io.open(os.getenv('RLOG_OUT'), 'w'))
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qa!')
