-- Drives Neovim with the plugin (editors/neovim) through :RlogView on a
-- Claude Code transcript and writes what the editor shows as JSON: the view's
-- buffer (its name, lines and options), the hover on a line the view cut
-- short, where Go to Definition jumps, the view again once the rest of
-- the transcript is written, and the sub-agent tree: the sub-agent's view
-- opened by its URI, and its incoming calls (the session, at its x: lines).
-- Inputs from the environment:
--   RLOG_LS    the server binary
--   RLOG_FILE  the transcript (cut short)
--   RLOG_REST  a file holding the transcript's remaining lines
--   RLOG_LINE, RLOG_COL  0-based position of the line to try, in the view
--   RLOG_LAST  a line the view has once the rest is written
--   RLOG_SUB   the sub-agent's transcript
--   RLOG_OUT   where to write the results
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_lib.lua')
local out = { errors = {} }

local view_buf = lib.view_buf

local ok, err = pcall(function()
  require('rlog').setup({ cmd = { os.getenv('RLOG_LS') } })
  local file = os.getenv('RLOG_FILE')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  vim.cmd('RlogView')
  if not vim.wait(120000, function() return view_buf() ~= nil end, 20) then error('no view buffer') end
  local view = view_buf()
  if not lib.attached(view) then error('rlog-ls did not attach to the view') end
  out.view = {
    name = vim.api.nvim_buf_get_name(view),
    current = vim.api.nvim_get_current_buf() == view,
    lines = vim.api.nvim_buf_get_lines(view, 0, -1, false),
    filetype = vim.bo[view].filetype, modifiable = vim.bo[view].modifiable, readonly = vim.bo[view].readonly,
    buftype = vim.bo[view].buftype,
  }

  local line, col = tonumber(os.getenv('RLOG_LINE')), tonumber(os.getenv('RLOG_COL'))
  out.hover = lib.hover(view, line, col)
  -- Go to Definition: into the transcript, at the record.
  out.jump = lib.definition(line, col)

  -- Claude Code writes the rest of the session: the view follows.
  local rest = assert(io.open(os.getenv('RLOG_REST'))):read('*a')
  local f = assert(io.open(file, 'a'))
  f:write(rest)
  f:close()
  local last = os.getenv('RLOG_LAST')
  local grown = vim.wait(120000, function()
    for _, l in ipairs(vim.api.nvim_buf_get_lines(view, 0, -1, false)) do
      if l:sub(1, #last) == last then return true end
    end
    return false
  end, 50)
  if not grown then error('the view did not follow the transcript') end
  out.grown = vim.api.nvim_buf_get_lines(view, 0, -1, false)
  out.modified = vim.bo[view].modified
  out.modifiable_after = vim.bo[view].modifiable
  out.hover_after = lib.hover(view, line, col)

  -- The sub-agent tree: the sub-agent's view, opened by its URI as a call
  -- hierarchy's entry names it, and from it the session that started it.
  vim.cmd('edit ' .. vim.fn.fnameescape('rlog-view://' .. os.getenv('RLOG_SUB') .. '.rlog'))
  local sub = vim.api.nvim_get_current_buf()
  if not lib.attached(sub) then error('rlog-ls did not attach to the sub-agent\'s view') end
  out.sub = {
    name = vim.api.nvim_buf_get_name(sub),
    lines = vim.api.nvim_buf_get_lines(sub, 0, -1, false),
    filetype = vim.bo[sub].filetype, modifiable = vim.bo[sub].modifiable, readonly = vim.bo[sub].readonly,
  }
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  out.callers = lib.calls('incoming')
  vim.cmd('cfirst')
  out.caller = { file = vim.api.nvim_buf_get_name(0), line = vim.api.nvim_win_get_cursor(0)[1], current_is_view = vim.api.nvim_get_current_buf() == view }
end)
lib.finish(out, ok, err)
