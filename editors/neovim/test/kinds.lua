-- Dumps, for each file given on the command line, each line's kind as the
-- rlog syntax file classifies it (the outermost syntax group at the line's
-- first non-blank character), the syntax group at each token listed in
-- $RLOG_PROBES, and the highlight groups the main items are linked to.
-- Writes JSON to $RLOG_OUT. Run headless:
--   nvim --headless --clean --cmd 'set rtp^=editors/neovim' -c 'luafile kinds.lua' -- FILES
local kinds = {
  rlogLineUnknown = 'unknown', rlogLineTodos = 'todos', rlogLineThinking = 'thinking',
  rlogLineLifecycle = 'lifecycle', rlogLinePhase = 'phase', rlogLineComment = 'comment',
  rlogLineQuestion = 'question', rlogLineMcp = 'mcp', rlogLineSubagent = 'subagent',
  rlogLineRecall = 'recall', rlogLineMode = 'mode', rlogLinePlan = 'plan', rlogLineSkill = 'skill',
  rlogLineObservation = 'observation', rlogLineTool = 'tool', rlogLineToolProgress = 'tool_progress',
  rlogLineToolStart = 'tool_start', rlogLineAgent = 'agent', rlogLineUser = 'user',
  rlogLineContinuation = 'continuation', rlogLineEmpty = 'empty',
  rlogPreamble = 'preamble', rlogHeaderDelim = 'header_delimiter',
}

local function names(lnum, col)
  local out = {}
  for _, id in ipairs(vim.fn.synstack(lnum, col)) do
    table.insert(out, vim.fn.synIDattr(id, 'name'))
  end
  return out
end

local function kind_of(lnum, text)
  local col = (text:find('%S') or 1)
  local stack = names(lnum, col)
  if #text == 0 then
    -- No character to ask about: the region the line is in.
    local prev = lnum > 1 and names(lnum - 1, 1) or {}
    stack = vim.fn.synstack(lnum, 1)
    stack = names(lnum, 1)
  end
  for _, n in ipairs(stack) do
    if kinds[n] then return kinds[n], stack end
    if n == 'rlogHeader' then
      -- The delimiters are the region's start and end (matchgroup).
      local last = stack[#stack]
      if last == 'rlogHeaderDelim' then return 'header_delimiter', stack end
      return 'header', stack
    end
  end
  if text:match('^%s*$') then return 'empty', stack end
  return '(none)', stack
end

local probes = {}
if os.getenv('RLOG_PROBES') then
  local f = assert(io.open(os.getenv('RLOG_PROBES')))
  probes = vim.fn.json_decode(f:read('*a'))
  f:close()
end

local result = { files = {}, filetype = {}, colours = {}, tokens = {} }
for _, path in ipairs(vim.fn.argv()) do
  vim.cmd('silent edit! ' .. vim.fn.fnameescape(path))
  result.filetype[path] = vim.bo.filetype
  local lines = {}
  for lnum = 1, vim.fn.line('$') do
    local text = vim.fn.getline(lnum)
    local k, stack = kind_of(lnum, text)
    table.insert(lines, { kind = k, stack = stack })
  end
  result.files[path] = lines
  -- The syntax group at the start of each probed token.
  local groups = {}
  for _, p in ipairs(probes[path] or {}) do
    table.insert(groups, vim.fn.synIDattr(vim.fn.synID(p.line, p.byte + 1, 1), 'name'))
  end
  result.tokens[path] = groups
end
-- The colour groups the main items resolve to.
for _, g in ipairs({ 'rlogPrefix', 'rlogToolName', 'rlogKey', 'rlogId', 'rlogTimestamp', 'rlogStatusOk',
  'rlogStatusError', 'rlogLineComment', 'rlogHeaderKey', 'rlogPhaseName', 'rlogSubagent' }) do
  result.colours[g] = vim.fn.synIDattr(vim.fn.synIDtrans(vim.fn.hlID(g)), 'name')
end
local f = assert(io.open(os.getenv('RLOG_OUT'), 'w'))
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd('qa!')
