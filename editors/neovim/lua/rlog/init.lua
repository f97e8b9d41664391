-- rlog-ls for Neovim: starts the rlog/1 language server for rlog buffers.
--
--   require('rlog').setup()                       -- rlog-ls on PATH
--   require('rlog').setup({ cmd = { '/path/to/rlog-ls' },
--                           settings = { rlog = { disabledCodes = { 'I004' } } } })
--
-- Works with Neovim 0.7 (vim.lsp.start_client) and 0.8+ (vim.lsp.start).
--
-- A log's companion (NAME.jsonl or NAME.json beside NAME.rlog: the full
-- record of the session) gets the server too, for Go to Definition and
-- hover back to the log; :RlogFullRecord (require('rlog').show_full_record())
-- shows the full record of the line under the cursor in a read-only buffer.
-- :RlogView [FILE] (require('rlog').open_view()) opens a session file the
-- server reads (a Claude Code transcript, an ATIF trajectory ...) as a
-- read-only rlog buffer, which the server keeps up to date while the file
-- grows (docs/views.md); a buffer named by a view's URI (an entry of the
-- sub-agent tree, vim.lsp.buf.incoming_calls()) is made the same way.
-- :RlogCompare OTHER (require('rlog').compare()) shows the current buffer's
-- session and OTHER side by side in diff mode, each masked (ids, times,
-- tokens) so that only behaviour differs.
-- The syntax colours and buffer settings come from the rest of this folder
-- (syntax/, ftplugin/) once it is on 'runtimepath'; so does the file type
-- (ftdetect/), which setup() also registers, since plugin managers that add
-- this folder to 'runtimepath' after startup do not source its ftdetect/.
local M = {}

-- Where to get the server without Go: a release archive of the binary.
M.releases_url = 'https://github.com/rlog-ls/rlog-ls/releases'

local defaults = {
  cmd = { 'rlog-ls' },
  -- Sent as initializationOptions and answered to workspace/configuration
  -- (section "rlog"); see the README for every setting.
  settings = { rlog = {} },
  -- Files whose presence marks the workspace root (for workspace symbols).
  root_markers = { '.git' },
}

local config = vim.deepcopy(defaults)
local clients = {} -- root directory -> client id (Neovim 0.7)
local warned = false

-- The scheme of views, whose buffers are named by their URI:
-- rlog-view:// and the session file's path with .rlog after it.
M.view_scheme = 'rlog-view'

-- view_source returns the session file a view's buffer name (its URI)
-- shows, or nil for any other name.
function M.view_source(name)
  local rest = name:match('^' .. vim.pesc(M.view_scheme) .. ':(.*)%.rlog$')
  if not rest then return nil end
  return vim.uri_to_fname('file:' .. rest)
end

local function root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  name = M.view_source(name) or name
  local dir = name ~= '' and vim.fn.fnamemodify(name, ':p:h') or vim.fn.getcwd()
  for _, marker in ipairs(config.root_markers) do
    local found = vim.fn.finddir(marker, dir .. ';')
    if found == '' then found = vim.fn.findfile(marker, dir .. ';') end
    if found ~= '' then return vim.fn.fnamemodify(found, ':p:h:h') end
  end
  return dir
end

local function installed()
  if vim.fn.executable(config.cmd[1]) ~= 1 then
    if not warned then
      warned = true
      vim.notify(('rlog: the language server %q was not found. Download rlog-ls from %s and put it on PATH '
        .. "(or, with Go 1.26, run `go install ./cmd/rlog-ls` in a clone of the repository), or pass "
        .. "cmd = { '/path/to/rlog-ls' } to require('rlog').setup(). Syntax colours work without it.")
        :format(config.cmd[1], M.releases_url), vim.log.levels.WARN)
    end
    return false
  end
  return true
end

-- start attaches the server to a buffer, starting it if needed. It returns
-- the client id, or nil (with a message saying how to install the server)
-- when the binary is missing.
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not installed() then return nil end
  local root = root_dir(bufnr)
  local spec = {
    name = 'rlog-ls',
    cmd = config.cmd,
    root_dir = root,
    settings = config.settings,
    init_options = config.settings.rlog,
  }
  if vim.lsp.start then
    return vim.lsp.start(spec, { bufnr = bufnr })
  end
  local id = clients[root]
  if not id or vim.lsp.client_is_stopped(id) then
    spec.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
    id = vim.lsp.start_client(spec)
    clients[root] = id
  end
  if id then vim.lsp.buf_attach_client(bufnr, id) end
  return id
end

-- register_filetype makes *.rlog files the rlog file type when Neovim did
-- not source ftdetect/rlog.vim: lazy.nvim and packer put a sub-folder of a
-- repository on 'runtimepath' after Neovim and they have sourced the
-- ftdetect/ files they know of.
local function register_filetype()
  if vim.fn.exists('#filetypedetect#BufRead#*.rlog') == 1 then return end
  vim.cmd('augroup filetypedetect | runtime! ftdetect/rlog.vim | augroup END')
end

local function exists(p) return vim.fn.filereadable(p) == 1 end

-- log_of returns the log whose companion (or subagent file) the file is:
-- NAME.rlog (or NAME.converted.rlog, the name rlog-ls convert gives a
-- conversion) for NAME.jsonl, NAME.json and NAME.sub-ID.jsonl; for a Claude
-- Code subagent transcript (NAME/subagents/agent-ID.jsonl) NAME.rlog, or
-- for DIR/subagents/agent-ID.jsonl a log in DIR. nil when there is none.
local function log_named(base)
  for _, p in ipairs({ base .. '.rlog', base .. '.converted.rlog' }) do
    if exists(p) then return p end
  end
end

function M.log_of(file)
  local ext = file:match('%.(jsonl?)$')
  if not ext then return nil end
  local dir = vim.fn.fnamemodify(file, ':h')
  local stem = vim.fn.fnamemodify(file, ':t:r')
  if stem:match('^agent%-') and vim.fn.fnamemodify(dir, ':t') == 'subagents' then
    local parent = vim.fn.fnamemodify(dir, ':h')
    if log_named(parent) then return log_named(parent) end
    local logs = vim.fn.glob(parent .. '/*.rlog', false, true)
    table.sort(logs)
    return logs[1]
  end
  local base = ext == 'jsonl' and stem:match('^(.+)%.sub%-[^/]+$')
  if base and exists(dir .. '/' .. base .. '.rlog') then return dir .. '/' .. base .. '.rlog' end
  return log_named(dir .. '/' .. stem)
end

-- show_full_record shows the full record of the current line of a log (the
-- whole output, message or input the log cut short) in a read-only buffer,
-- through the server's rlog/companionRecord request.
function M.show_full_record()
  local params = vim.lsp.util.make_position_params()
  vim.lsp.buf_request(0, 'rlog/companionRecord', params, function(err, result)
    if err then
      vim.notify('rlog: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
      return
    end
    if not result or result == vim.NIL then
      vim.notify('rlog: this line has no full record (the log has no companion file, or the line is not in it)')
      return
    end
    vim.cmd('botright new')
    local buf = vim.api.nvim_get_current_buf()
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'wipe'
    vim.bo[buf].swapfile = false
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(result.text, '\n', { plain = true }))
    vim.bo[buf].filetype = result.language == 'json' and 'json' or 'text'
    vim.bo[buf].modifiable = false
    vim.bo[buf].readonly = true
    pcall(vim.api.nvim_buf_set_name, buf, ('rlog record: line %d, %s'):format(result.line + 1, result.title))
  end)
end

-- server_client returns a running rlog-ls client, started (for the root of
-- file) when there is none, or nil when the server is missing.
local function server_client(file)
  for _, c in pairs(vim.lsp.get_active_clients()) do
    if c.name == 'rlog-ls' and not c.is_stopped() then return c end
  end
  if not installed() then return nil end
  local dir = vim.fn.fnamemodify(file, ':p:h')
  local root = dir
  for _, marker in ipairs(config.root_markers) do
    local found = vim.fn.finddir(marker, dir .. ';')
    if found == '' then found = vim.fn.findfile(marker, dir .. ';') end
    if found ~= '' then root = vim.fn.fnamemodify(found, ':p:h:h') break end
  end
  local id = vim.lsp.start_client({
    name = 'rlog-ls', cmd = config.cmd, root_dir = root, settings = config.settings, init_options = config.settings.rlog,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
  })
  if not id then return nil end
  clients[root] = id
  return vim.lsp.get_client_by_id(id)
end

-- view_buffer returns the loaded buffer of a view, by its URI.
local function view_buffer(uri)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == uri then return b end
  end
end

-- fill_view puts a view's text (rlog/sessionView's answer) in buf, a
-- read-only rlog buffer named by the view's URI, with the server attached.
local function fill_view(buf, view)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable, vim.bo[buf].readonly = true, false
  -- The text ends with a line end, which the buffer's 'eol' gives.
  local lines = vim.split(view.text, '\n', { plain = true })
  if lines[#lines] == '' then table.remove(lines) end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modified = false
  vim.bo[buf].filetype = 'rlog'
  if #vim.lsp.buf_get_clients(buf) == 0 then M.start(buf) end
  vim.bo[buf].modifiable = false
  vim.bo[buf].readonly = true
end

-- show_view shows a view (rlog/sessionView's answer) in a read-only rlog
-- buffer named by its URI, in the current window or (mods: 'vertical' ...)
-- in a new one.
local function show_view(view, mods)
  local buf = view_buffer(view.uri)
  if buf then
    vim.cmd((mods ~= '' and (mods .. ' sbuffer ') or 'buffer ') .. buf)
    return buf
  end
  vim.cmd(mods ~= '' and (mods .. ' new') or 'enew')
  buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_name(buf, view.uri)
  fill_view(buf, view)
  return buf
end

-- on_view_changed applies the server's rlog/sessionViewChanged, the edits
-- that bring an open view up to date, to the view's buffer; edits for
-- another version are dropped (the server sends them again).
function M.on_view_changed(_, params, ctx)
  local buf = view_buffer(params.textDocument.uri)
  if not buf or vim.lsp.util.buf_versions[buf] ~= params.textDocument.version then return end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  vim.bo[buf].modifiable, vim.bo[buf].readonly = true, false
  vim.lsp.util.apply_text_edits(params.edits, buf, client and client.offset_encoding or 'utf-16')
  vim.bo[buf].modifiable, vim.bo[buf].readonly, vim.bo[buf].modified = false, true, false
end

-- view_client is the server for a view of file, once it is initialized
-- (nil, with a message, when it does not start), which follows the views.
local function view_client(file)
  vim.lsp.handlers['rlog/sessionViewChanged'] = M.on_view_changed
  local client = server_client(file)
  if not client then return nil end
  if not vim.wait(15000, function() return client.initialized end, 20) then
    vim.notify('rlog: the language server did not start', vim.log.levels.ERROR)
    return nil
  end
  return client
end

-- open_view opens a session file (file, or the current buffer's) as a
-- read-only rlog buffer: the server converts it (rlog/sessionView), and the
-- buffer is a log with the file as its companion (hover shows a line's full
-- record, Go to Definition opens it), kept up to date while the file grows.
-- mods are a command's modifiers (:vertical RlogView opens it beside).
function M.open_view(file, mods)
  file = (file and file ~= '') and file or vim.api.nvim_buf_get_name(0)
  file = vim.fn.fnamemodify(M.view_source(file) or file, ':p')
  local name = vim.fn.fnamemodify(file, ':t')
  local client = view_client(file)
  if not client then return end
  client.request('rlog/sessionView', { textDocument = { uri = vim.uri_from_fname(file) } }, function(err, view)
    if err then
      vim.notify(('rlog: %s cannot be opened as rlog: %s'):format(name, err.message or tostring(err)), vim.log.levels.ERROR)
      return
    end
    show_view(view, mods or '')
    vim.notify(('rlog: %s (%s) as rlog: %s'):format(name, view.description, (view.losses:match('^[^\n]*') or ''):gsub('^.-: ', '')))
  end)
end

-- request_sessions asks the server for rlog/sessions (params: paths,
-- touched) for the current folder, and calls done with the answer.
local function request_sessions(params, done)
  local client = server_client(vim.fn.getcwd() .. '/.')
  if not client then return end
  if not vim.wait(15000, function() return client.initialized end, 20) then
    vim.notify('rlog: the language server did not start', vim.log.levels.ERROR)
    return
  end
  client.request('rlog/sessions', params, function(err, result)
    if err then
      vim.notify('rlog: the sessions could not be listed: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
      return
    end
    done(result)
  end)
end

-- session_item is a row of rlog/sessions for a list: when, agent, title,
-- duration and calls.
function M.session_item(row)
  local when = row.start and row.start:sub(1, 16):gsub('T', ' ') or '—'
  local title = (row.title ~= '' and row.title) or vim.fn.fnamemodify(row.file, ':t')
  local figures = ('%d calls'):format(row.tool_calls)
  if row.errors > 0 then figures = figures .. (', %d errors'):format(row.errors) end
  if row.subagents > 0 then figures = figures .. (', %d sub-agents'):format(row.subagents) end
  if row.cost_usd ~= vim.NIL and row.cost_usd then figures = figures .. (', $%.4f'):format(row.cost_usd) end
  return ('%s  %s  %s  (%s)'):format(when, row.agent ~= '' and row.agent or row.format, title, figures)
end

-- open_session opens a row of rlog/sessions: an rlog file as it is, any
-- other session as its rlog view.
function M.open_session(row)
  if row.format == 'rlog' then
    vim.cmd('edit ' .. vim.fn.fnameescape(row.file))
  else
    M.open_view(row.file, '')
  end
end

-- sessions lists this folder's sessions (those of paths, when given),
-- newest first, with vim.ui.select, and opens the one chosen.
function M.sessions(paths)
  local params = vim.empty_dict() -- {} would be sent as []
  if paths and #paths > 0 then params.paths = vim.tbl_map(function(p) return vim.fn.fnamemodify(p, ':p') end, paths) end
  request_sessions(params, function(doc)
    if #doc.sessions == 0 then
      vim.notify('rlog: no sessions of this folder were found')
      return
    end
    vim.ui.select(doc.sessions, { prompt = 'Sessions', format_item = M.session_item }, function(row)
      if row then M.open_session(row) end
    end)
  end)
end

-- touched lists the calls of this folder's sessions that changed file (the
-- current buffer's), newest session first, in the quickfix list: each
-- entry opens the session file at the call.
function M.touched(file)
  file = vim.fn.fnamemodify((file and file ~= '') and file or vim.api.nvim_buf_get_name(0), ':p')
  local params = vim.empty_dict()
  params.touched = file
  request_sessions(params, function(doc)
    local items = {}
    for _, c in ipairs(doc.changes) do
      table.insert(items, { filename = c.file, lnum = c.line, text = c.tool .. ': ' .. c.target })
    end
    vim.fn.setqflist({}, ' ', { title = 'Sessions that changed ' .. vim.fn.fnamemodify(file, ':t'), items = items })
    if #items == 0 then
      vim.notify('rlog: no session of this folder changed ' .. vim.fn.fnamemodify(file, ':t'))
      return
    end
    vim.cmd('copen')
  end)
end

-- The scheme of the masked views :RlogCompare shows: rlog-masked://, the
-- side (A or B) and the session file's base name.
M.masked_scheme = 'rlog-masked'

-- session_of is the session file a buffer shows: the file a view shows,
-- or the buffer's own file (an .rlog log, a transcript ...); nil when the
-- buffer has no file.
local function session_of(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' then return nil end
  return vim.fn.fnamemodify(M.view_source(name) or name, ':p')
end

-- show_masked puts a masked view (rlog/maskedView's answer) of side ('A' or
-- 'B') in the current window's new buffer: read only, coloured as rlog but
-- not given to the server (masked values are no log's), in diff mode.
local function show_masked(side, view)
  local buf = vim.api.nvim_get_current_buf()
  local name = ('%s://%s/%s'):format(M.masked_scheme, side, view.name)
  -- A comparison shown before under the same name gives way.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if b ~= buf and vim.api.nvim_buf_get_name(b) == name then vim.api.nvim_buf_delete(b, { force = true }) end
  end
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  local lines = vim.split(view.text, '\n', { plain = true })
  if lines[#lines] == '' then table.remove(lines) end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_name(buf, name)
  vim.bo[buf].syntax = 'rlog'
  vim.bo[buf].modified = false
  vim.bo[buf].modifiable = false
  vim.bo[buf].readonly = true
  vim.cmd('diffthis')
  return buf
end

-- compare opens two sessions (other and the current buffer's, or a and b)
-- side by side in a new tab page, each as its rlog view with what differs
-- between any two runs masked (rlog/maskedView: ids, times, tokens, costs,
-- the session's folder), in diff mode: what differs is behaviour. The left
-- buffer is rlog-masked://A/NAME, the right rlog-masked://B/NAME.
function M.compare(a, b)
  if not b then
    a, b = session_of(0), a
    if not a then
      vim.notify('rlog: open a session (an .rlog log, a transcript …) to compare it with another', vim.log.levels.ERROR)
      return
    end
  end
  local files = { vim.fn.fnamemodify(M.view_source(a) or a, ':p'), vim.fn.fnamemodify(M.view_source(b) or b, ':p') }
  local client = server_client(files[1])
  if not client then return end
  if not vim.wait(15000, function() return client.initialized end, 20) then
    vim.notify('rlog: the language server did not start', vim.log.levels.ERROR)
    return
  end
  local views, failed = {}, false
  local function shown()
    vim.cmd('tabnew')
    show_masked('A', views[1])
    vim.cmd('rightbelow vertical new')
    show_masked('B', views[2])
    vim.cmd('wincmd =')
  end
  for i, file in ipairs(files) do
    client.request('rlog/maskedView', { textDocument = { uri = vim.uri_from_fname(file) } }, function(err, view)
      if failed then return end
      if err then
        failed = true
        vim.notify(('rlog: cannot compare: %s'):format(err.message or tostring(err)), vim.log.levels.ERROR)
        return
      end
      views[i] = view
      if views[1] and views[2] then shown() end
    end)
  end
end

-- read_view makes the view a buffer is named after (rlog-view:// and a
-- session file's path with .rlog after it) when it is read: a view that a
-- call hierarchy's entry (the sub-agent tree), a quickfix list or :edit
-- names, not opened with :RlogView.
function M.read_view(buf)
  local file = M.view_source(vim.api.nvim_buf_get_name(buf))
  if not file then return end
  local name = vim.fn.fnamemodify(file, ':t')
  local client = view_client(file)
  if not client then return end
  local res, err = client.request_sync('rlog/sessionView', { textDocument = { uri = vim.uri_from_fname(file) } }, 60000, buf)
  if not res or res.err then
    local e = res and res.err or err
    vim.notify(('rlog: %s cannot be opened as rlog: %s'):format(name, type(e) == 'table' and (e.message or vim.inspect(e)) or tostring(e)),
      vim.log.levels.ERROR)
    return
  end
  fill_view(buf, res.result)
end

function M.setup(opts)
  config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  register_filetype()
  local group = vim.api.nvim_create_augroup('rlog-ls', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'rlog',
    callback = function(ev) M.start(ev.buf) end,
  })
  -- Companions: navigation back to the log.
  vim.api.nvim_create_autocmd('BufReadPost', {
    group = group,
    pattern = { '*.jsonl', '*.json' },
    callback = function(ev)
      if M.log_of(vim.api.nvim_buf_get_name(ev.buf)) then M.start(ev.buf) end
    end,
  })
  -- A view named by its URI (a call hierarchy's entry, :edit rlog-view://…).
  vim.api.nvim_create_autocmd('BufReadCmd', {
    group = group,
    pattern = M.view_scheme .. '://*',
    callback = function(ev) M.read_view(ev.buf) end,
  })
  vim.api.nvim_create_user_command('RlogFullRecord', M.show_full_record, {})
  vim.api.nvim_create_user_command('RlogView', function(o) M.open_view(o.args, o.mods) end, { nargs = '?', complete = 'file' })
  vim.api.nvim_create_user_command('RlogSessions', function(o) M.sessions(o.fargs) end, { nargs = '*', complete = 'file' })
  vim.api.nvim_create_user_command('RlogCompare', function(o)
    if #o.fargs > 2 then
      vim.notify('rlog: :RlogCompare OTHER, or :RlogCompare A B', vim.log.levels.ERROR)
      return
    end
    M.compare(o.fargs[1], o.fargs[2])
  end, { nargs = '+', complete = 'file' })
  vim.api.nvim_create_user_command('RlogTouched', function(o) M.touched(o.args) end, { nargs = '?', complete = 'file' })
  vim.lsp.handlers['rlog/sessionViewChanged'] = M.on_view_changed
  -- Buffers already open when setup runs.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and (vim.bo[b].filetype == 'rlog' or M.log_of(vim.api.nvim_buf_get_name(b))) then M.start(b) end
  end
end

return M
