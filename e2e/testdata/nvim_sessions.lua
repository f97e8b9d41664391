-- Drives Neovim with the plugin (editors/neovim) through :RlogSessions and
-- :RlogTouched in a folder with one Claude Code session, and writes what it
-- saw as JSON: the items vim.ui.select was given, the buffer the chosen one
-- opened, and the quickfix list. Inputs from the environment:
--   RLOG_LS       the server binary
--   RLOG_TOUCHED  a file the session changed
--   RLOG_OUT      where to write the results
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_lib.lua')
local out = { errors = {} }

local view_buf = lib.view_buf

local ok, err = pcall(function()
  require('rlog').setup({ cmd = { os.getenv('RLOG_LS') } })
  local offered
  vim.ui.select = function(items, opts, on_choice)
    offered = {}
    for _, it in ipairs(items) do table.insert(offered, opts.format_item(it)) end
    on_choice(items[1], 1)
  end
  vim.cmd('RlogSessions')
  if not vim.wait(120000, function() return view_buf() ~= nil end, 20) then error('no view opened; offered: ' .. vim.inspect(offered)) end
  out.items = offered
  out.view = vim.api.nvim_buf_get_name(view_buf())
  vim.cmd('RlogTouched ' .. vim.fn.fnameescape(os.getenv('RLOG_TOUCHED')))
  if not vim.wait(120000, function() return #vim.fn.getqflist() > 0 end, 20) then error('the quickfix list stayed empty') end
  out.quickfix = {}
  for _, q in ipairs(vim.fn.getqflist()) do
    table.insert(out.quickfix, { file = vim.api.nvim_buf_get_name(q.bufnr), line = q.lnum, text = q.text })
  end
end)
if not ok then table.insert(out.errors, tostring(err)) end
local f = io.open(os.getenv('RLOG_OUT'), 'w')
f:write(vim.json.encode(out))
f:close()
vim.cmd('qa!')
