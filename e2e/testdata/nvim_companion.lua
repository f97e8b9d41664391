-- Drives Neovim with the plugin (editors/neovim) on a log and its companion
-- and writes what the editor shows as JSON: the hover on a cut-short line,
-- where Go to Definition jumps (into the companion, and from there back),
-- and the buffer :RlogFullRecord opens. Inputs from the environment:
--   RLOG_LS    the server binary
--   RLOG_FILE  the log (its companion beside it)
--   RLOG_LINE, RLOG_COL  0-based position of the line to try
--   RLOG_OUT   where to write the results
local out = { errors = {} }
local function fail(msg) table.insert(out.errors, msg) end

local function attached(buf)
  return vim.wait(15000, function()
    for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
      if c.name == 'rlog-ls' and c.initialized then return true end
    end
    return false
  end, 20)
end

local function here()
  local pos = vim.api.nvim_win_get_cursor(0)
  return { file = vim.api.nvim_buf_get_name(0), line = pos[1] - 1, col = pos[2] }
end

local ok, err = pcall(function()
  require('rlog').setup({ cmd = { os.getenv('RLOG_LS') } })
  local line, col = tonumber(os.getenv('RLOG_LINE')), tonumber(os.getenv('RLOG_COL'))
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('RLOG_FILE')))
  local log = vim.api.nvim_get_current_buf()
  if not attached(log) then error('rlog-ls did not attach to the log') end

  local params = { textDocument = { uri = vim.uri_from_bufnr(log) }, position = { line = line, character = col } }
  local res = vim.lsp.buf_request_sync(log, 'textDocument/hover', params, 15000) or {}
  for _, r in pairs(res) do
    if r.result then out.hover = r.result.contents.value end
  end

  -- Go to Definition from the line: the companion, at its record.
  vim.api.nvim_win_set_cursor(0, { line + 1, col })
  vim.lsp.buf.definition()
  if not vim.wait(15000, function() return vim.api.nvim_get_current_buf() ~= log end, 20) then
    error('Go to Definition did not leave the log')
  end
  out.jump = here()
  -- The plugin attaches the server to the companion too; from there, back.
  local companion = vim.api.nvim_get_current_buf()
  out.companion_attached = attached(companion)
  vim.lsp.buf.definition()
  if not vim.wait(15000, function() return vim.api.nvim_get_current_buf() == log end, 20) then
    error('Go to Definition did not lead back to the log')
  end
  out.back = here()

  -- The full record in a buffer of its own.
  vim.api.nvim_win_set_cursor(0, { line + 1, col })
  require('rlog').show_full_record()
  if not vim.wait(15000, function() return vim.api.nvim_buf_get_name(0):find('rlog record:', 1, true) ~= nil end, 20) then
    error('no record buffer')
  end
  out.record = {
    name = vim.api.nvim_buf_get_name(0),
    lines = vim.api.nvim_buf_get_lines(0, 0, -1, false),
    readonly = vim.bo.readonly, modifiable = vim.bo.modifiable, buftype = vim.bo.buftype,
  }

  for _, c in pairs(vim.lsp.get_active_clients()) do c.stop() end
  vim.wait(3000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
end)
if not ok then fail(tostring(err)) end
local f = assert(io.open(os.getenv('RLOG_OUT'), 'w'))
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qa!')
