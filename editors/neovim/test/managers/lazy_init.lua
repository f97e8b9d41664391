-- What lazy.nvim does at startup with the rlog-ls spec, for Neovim 0.7 (lazy.nvim
-- needs 0.8, and GitHub is not reachable from the test machines): the steps of
-- lazy.nvim's lua/lazy/core/loader.lua (startup, _load, packadd, config), with
-- the repository as the installed plugin (a link to it where lazy.nvim would
-- clone it, stdpath('data')/lazy/rlog-ls). Used as `nvim -u lazy_init.lua`.
-- Env: RLOG_PLUGIN_DIR (the plugin's folder), RLOG_SPEC (the spec's Lua text,
-- taken from editors/neovim/README.md).
local spec = assert(loadstring('return ' .. os.getenv('RLOG_SPEC')))()
local plugin = vim.tbl_extend('force', spec, { name = 'rlog-ls', dir = os.getenv('RLOG_PLUGIN_DIR') })

-- lazy.nvim takes over plugin loading.
vim.go.loadplugins = false

-- source_runtime: every *.lua and *.vim under dir/sub, alphabetically.
local function source_runtime(dir, sub)
  local files = vim.fn.globpath(dir, sub .. '/**/*.vim', false, true)
  vim.list_extend(files, vim.fn.globpath(dir, sub .. '/**/*.lua', false, true))
  table.sort(files)
  for _, f in ipairs(files) do vim.cmd('source ' .. vim.fn.fnameescape(f)) end
end

-- startup(): filetype detection first, over the runtime path as it is now.
-- (lazy.nvim sources $VIMRUNTIME/filetype.lua, which on 0.8+ runs
-- `runtime! ftdetect/*` and sets did_load_filetypes, so the `filetype on`
-- after init.lua does nothing more; `filetype on` here does the same on 0.7.)
vim.cmd('filetype on')
local rtp = vim.opt.rtp:get()

-- 2. load start plugins, _load(plugin): add_to_rtp, packadd (plugin/ and,
-- in augroup filetypedetect, ftdetect/ of plugin.dir), then config.
vim.opt.rtp:append(plugin.dir)
source_runtime(plugin.dir, 'plugin')
vim.cmd('augroup filetypedetect')
source_runtime(plugin.dir, 'ftdetect')
vim.cmd('augroup END')
if plugin.config then
  -- lazy.nvim reports a failing config (Util.try) and goes on.
  local ok, err = pcall(plugin.config, plugin, plugin.opts or {})
  if not ok then _G.rlog_manager_errors = { 'Failed to run `config` for rlog-ls: ' .. tostring(err) } end
end

-- 3. the plugin/ files of the runtime path as it was before the plugins
-- (not of folders the plugins added); 4. after/plugin.
for _, path in ipairs(rtp) do
  if not path:find('after/?$') then source_runtime(path, 'plugin') end
end
for _, path in ipairs(vim.opt.rtp:get()) do
  if path:find('after/?$') then source_runtime(path, 'plugin') end
end
