-- Drives Neovim's built-in LSP client against rlog-ls and writes what the
-- editor reports as JSON. Inputs come from the environment:
--   RLOG_LS    the server binary
--   RLOG_FILE  the log to open
--   RLOG_PROBES  JSON {name: {line, character}} positions to query
--   RLOG_OUT   where to write the results
local server = os.getenv("RLOG_LS")
local file = os.getenv("RLOG_FILE")
local probes = vim.fn.json_decode(os.getenv("RLOG_PROBES"))
local out = os.getenv("RLOG_OUT")

local result = { errors = {} }
local function fail(msg)
  table.insert(result.errors, msg)
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = "rlog-ls",
  cmd = { server },
  root_dir = vim.fn.fnamemodify(file, ":h"),
  on_exit = function(code) result.server_exit = code end,
})
if not client_id then
  fail("start_client failed")
else
  vim.lsp.buf_attach_client(buf, client_id)
end

-- Diagnostics are published after a debounce: wait until the editor has them.
if not vim.wait(120000, function() return #vim.diagnostic.get(buf) > 0 end, 20) then
  fail("no diagnostics within 120s")
end
result.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(result.diagnostics, {
    lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
    severity = d.severity, code = d.code or lsp.code, message = d.message, source = d.source,
  })
end

local uri = vim.uri_from_bufnr(buf)
local function request(method, params)
  local responses, err = vim.lsp.buf_request_sync(buf, method, params, 120000)
  if not responses then
    fail(method .. ": " .. tostring(err))
    return nil
  end
  for _, r in pairs(responses) do
    if r.err then fail(method .. ": " .. vim.inspect(r.err)) end
    return r.result
  end
end

result.hover = vim.empty_dict()
result.definition = vim.empty_dict()
result.completion = vim.empty_dict()
for name, pos in pairs(probes) do
  local params = { textDocument = { uri = uri }, position = pos }
  result.hover[name] = request("textDocument/hover", params) or vim.NIL
  result.definition[name] = request("textDocument/definition", params) or vim.NIL
  result.completion[name] = request("textDocument/completion", params) or vim.NIL
end
result.symbols = request("textDocument/documentSymbol", { textDocument = { uri = uri } })
result.folding = request("textDocument/foldingRange", { textDocument = { uri = uri } })

vim.lsp.stop_client(client_id)
vim.wait(120000, function() return result.server_exit ~= nil end, 20)

local f = assert(io.open(out, "w"))
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd("qa!")
