-- Drives Neovim with the plugin (editors/neovim) through :RlogView on a
-- Claude Code transcript and writes what the editor shows as JSON: the view's
-- buffer (its name, lines and options), the hover on a line the view cut
-- short, where Go to Definition jumps, and the view again once the rest of
-- the transcript is written. Inputs from the environment:
--   RLOG_LS    the server binary
--   RLOG_FILE  the transcript (cut short)
--   RLOG_REST  a file holding the transcript's remaining lines
--   RLOG_LINE, RLOG_COL  0-based position of the line to try, in the view
--   RLOG_LAST  a line the view has once the rest is written
--   RLOG_OUT   where to write the results
local out = { errors = {} }

local function view_buf()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):find('^rlog%-view:') then return b end
  end
end

local function attached(buf)
  return vim.wait(15000, function()
    for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
      if c.name == 'rlog-ls' and c.initialized then return true end
    end
    return false
  end, 20)
end

local ok, err = pcall(function()
  require('rlog').setup({ cmd = { os.getenv('RLOG_LS') } })
  local file = os.getenv('RLOG_FILE')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  vim.cmd('RlogView')
  if not vim.wait(15000, function() return view_buf() ~= nil end, 20) then error('no view buffer') end
  local view = view_buf()
  if not attached(view) then error('rlog-ls did not attach to the view') end
  out.view = {
    name = vim.api.nvim_buf_get_name(view),
    current = vim.api.nvim_get_current_buf() == view,
    lines = vim.api.nvim_buf_get_lines(view, 0, -1, false),
    filetype = vim.bo[view].filetype, modifiable = vim.bo[view].modifiable, readonly = vim.bo[view].readonly,
    buftype = vim.bo[view].buftype,
  }

  local line, col = tonumber(os.getenv('RLOG_LINE')), tonumber(os.getenv('RLOG_COL'))
  local params = { textDocument = { uri = vim.uri_from_bufnr(view) }, position = { line = line, character = col } }
  for _, r in pairs(vim.lsp.buf_request_sync(view, 'textDocument/hover', params, 15000) or {}) do
    if r.result then out.hover = r.result.contents.value end
  end

  -- Go to Definition: into the transcript, at the record.
  vim.api.nvim_win_set_cursor(0, { line + 1, col })
  vim.lsp.buf.definition()
  if not vim.wait(15000, function() return vim.api.nvim_get_current_buf() ~= view end, 20) then
    error('Go to Definition did not leave the view')
  end
  local pos = vim.api.nvim_win_get_cursor(0)
  out.jump = { file = vim.api.nvim_buf_get_name(0), line = pos[1] - 1 }

  -- Claude Code writes the rest of the session: the view follows.
  local rest = assert(io.open(os.getenv('RLOG_REST'))):read('*a')
  local f = assert(io.open(file, 'a'))
  f:write(rest)
  f:close()
  local last = os.getenv('RLOG_LAST')
  local grown = vim.wait(30000, function()
    for _, l in ipairs(vim.api.nvim_buf_get_lines(view, 0, -1, false)) do
      if l:sub(1, #last) == last then return true end
    end
    return false
  end, 50)
  if not grown then error('the view did not follow the transcript') end
  out.grown = vim.api.nvim_buf_get_lines(view, 0, -1, false)
  out.modified = vim.bo[view].modified
  out.modifiable_after = vim.bo[view].modifiable
  for _, r in pairs(vim.lsp.buf_request_sync(view, 'textDocument/hover', params, 15000) or {}) do
    if r.result then out.hover_after = r.result.contents.value end
  end

  for _, c in pairs(vim.lsp.get_active_clients()) do c.stop() end
  vim.wait(3000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
end)
if not ok then table.insert(out.errors, tostring(err)) end
local f = assert(io.open(os.getenv('RLOG_OUT'), 'w'))
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qa!')
