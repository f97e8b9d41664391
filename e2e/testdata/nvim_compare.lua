-- Drives Neovim with the plugin (editors/neovim) through :RlogCompare: with
-- session A open, it compares it with session B, and writes what it saw as
-- JSON: for each window of the new tab page its buffer's name, text,
-- options, and the lines diff mode marks; before that, the message on a
-- file that is no session. Inputs from the environment:
--   RLOG_LS      the server binary
--   RLOG_A       the session open when :RlogCompare runs
--   RLOG_B       the other session
--   RLOG_OUT     where to write the results
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_lib.lua')
local out = { errors = {} }

local ok, err = pcall(function()
  require('rlog').setup({ cmd = { os.getenv('RLOG_LS') } })
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('RLOG_A')))
  local first = vim.api.nvim_get_current_tabpage()
  -- A file that is no session: a message, and no comparison.
  local notes = vim.fn.tempname() .. '.txt'
  vim.fn.writefile({ 'hello' }, notes)
  local notify = vim.notify
  vim.notify = function(msg, level) out.refused = { message = msg, level = level } end
  vim.cmd('RlogCompare ' .. vim.fn.fnameescape(notes))
  if not vim.wait(120000, function() return out.refused ~= nil end, 20) then error('no message on a file that is no session') end
  vim.notify = notify
  out.tabs_after_refusal = #vim.api.nvim_list_tabpages()
  vim.cmd('RlogCompare ' .. vim.fn.fnameescape(os.getenv('RLOG_B')))
  if not vim.wait(120000, function() return #vim.api.nvim_list_tabpages() == 2 and #vim.api.nvim_tabpage_list_wins(0) == 2 end, 20) then
    error('no comparison opened')
  end
  out.new_tab = vim.api.nvim_get_current_tabpage() ~= first
  out.sides = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(win)
    local marked = {}
    vim.api.nvim_win_call(win, function()
      for l = 1, vim.api.nvim_buf_line_count(buf) do
        -- diff_hlID is non-zero on a line diff mode marks (changed, added).
        if vim.fn.diff_hlID(l, 1) ~= 0 then table.insert(marked, vim.fn.getline(l)) end
      end
    end)
    table.insert(out.sides, {
      name = vim.api.nvim_buf_get_name(buf),
      text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n'),
      diff = vim.wo[win].diff,
      modifiable = vim.bo[buf].modifiable,
      readonly = vim.bo[buf].readonly,
      syntax = vim.bo[buf].syntax,
      clients = #vim.lsp.buf_get_clients(buf),
      marked = marked,
    })
  end
end)
lib.finish(out, ok, err)
