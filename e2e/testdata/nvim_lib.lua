-- What the Neovim scripts of the end-to-end tests share (each loads it with
-- dofile, from beside itself).
local M = {}

-- attached waits for rlog-ls to be attached to buf and initialized.
function M.attached(buf)
  return vim.wait(120000, function()
    for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
      if c.name == 'rlog-ls' and c.initialized then return true end
    end
    return false
  end, 20)
end

-- hover is the server's hover at 0-based line and col of buf, as Markdown.
function M.hover(buf, line, col)
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = col } }
  for _, r in pairs(vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, 120000) or {}) do
    if r.result then return r.result.contents.value end
  end
end

-- definition runs Go to Definition at 0-based line and col of the current
-- window's buffer and waits for it to leave that buffer; it returns where
-- it went: {file, line (0-based), col}.
function M.definition(line, col)
  local from = vim.api.nvim_get_current_buf()
  vim.api.nvim_win_set_cursor(0, { line + 1, col })
  vim.lsp.buf.definition()
  if not vim.wait(120000, function() return vim.api.nvim_get_current_buf() ~= from end, 20) then
    error('Go to Definition did not leave ' .. vim.api.nvim_buf_get_name(from))
  end
  local pos = vim.api.nvim_win_get_cursor(0)
  return { file = vim.api.nvim_buf_get_name(0), line = pos[1] - 1, col = pos[2] }
end

-- calls runs the call hierarchy's 'outgoing' or 'incoming' calls at the
-- cursor and returns the quickfix list they fill: {file, line, col, text}
-- an entry.
function M.calls(direction)
  vim.fn.setqflist({}, ' ', { title = 'none yet' })
  vim.lsp.buf[direction .. '_calls']()
  if not vim.wait(120000, function() return vim.fn.getqflist({ title = 1 }).title ~= 'none yet' end, 20) then
    error('no ' .. direction .. ' calls')
  end
  local items = {}
  for _, it in ipairs(vim.fn.getqflist()) do
    table.insert(items, { file = vim.api.nvim_buf_get_name(it.bufnr), line = it.lnum, col = it.col, text = it.text })
  end
  return items
end

-- finish stops the servers, writes out (and the error of a failed run) as
-- JSON to RLOG_OUT, and quits.
function M.finish(out, ok, err)
  for _, c in pairs(vim.lsp.get_active_clients()) do c.stop() end
  vim.wait(3000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
  if not ok then table.insert(out.errors, tostring(err)) end
  local f = assert(io.open(os.getenv('RLOG_OUT'), 'w'))
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd('qa!')
end

-- view_buf is the buffer of an rlog view (rlog-view: URI), if one is open.
function M.view_buf()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):find('^rlog%-view:') then return b end
  end
end

return M
