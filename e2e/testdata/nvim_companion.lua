-- Drives Neovim with the plugin (editors/neovim) on a log and its companion
-- and writes what the editor shows as JSON: the hover on a cut-short line,
-- where Go to Definition jumps (into the companion, and from there back),
-- the buffer :RlogFullRecord opens, and the session's outgoing calls (its
-- sub-agents) in the quickfix list. Inputs from the environment:
--   RLOG_LS    the server binary
--   RLOG_FILE  the log (its companion beside it)
--   RLOG_LINE, RLOG_COL  0-based position of the line to try
--   RLOG_OUT   where to write the results
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_lib.lua')
local out = { errors = {} }
local attached = lib.attached

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

  out.hover = lib.hover(log, line, col)

  -- Go to Definition from the line: the companion, at its record.
  out.jump = lib.definition(line, col)
  -- The plugin attaches the server to the companion too; from there, back.
  local companion = vim.api.nvim_get_current_buf()
  out.companion_attached = attached(companion)
  vim.lsp.buf.definition()
  if not vim.wait(120000, function() return vim.api.nvim_get_current_buf() == log end, 20) then
    error('Go to Definition did not lead back to the log')
  end
  out.back = here()

  -- The full record in a buffer of its own.
  vim.api.nvim_win_set_cursor(0, { line + 1, col })
  require('rlog').show_full_record()
  if not vim.wait(120000, function() return vim.api.nvim_buf_get_name(0):find('rlog record:', 1, true) ~= nil end, 20) then
    error('no record buffer')
  end
  out.record = {
    name = vim.api.nvim_buf_get_name(0),
    lines = vim.api.nvim_buf_get_lines(0, 0, -1, false),
    readonly = vim.bo.readonly, modifiable = vim.bo.modifiable, buftype = vim.bo.buftype,
  }

  -- The sub-agent tree: the session's outgoing calls, from its header, in
  -- the quickfix list (vim.lsp.buf.outgoing_calls).
  vim.cmd('buffer ' .. log)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  out.calls = lib.calls('outgoing')
end)
lib.finish(out, ok, err)
