-- What packer.nvim's :PackerCompile writes to plugin/packer_compiled.lua for
-- the rlog-ls spec (packer.nvim's lua/packer/compile.lua): the plugin's `rtp`
-- sub-folder appended to 'runtimepath', then its `config`, which packer keeps
-- as bytecode (string.dump: it runs without upvalues) and calls with the
-- plugin's name and info in a pcall. The plugin itself is a start package
-- (pack/packer/start/rlog-ls: a link to the repository where packer would
-- clone it), which Neovim loads. Neovim sources this file with the other
-- plugin/ files, after `filetype on`, as it does the real one.
-- Env: RLOG_PLUGIN_DIR (the start package), RLOG_SPEC (the `use { ... }` call
-- of editors/neovim/README.md).
local spec
local chunk = assert(loadstring(os.getenv('RLOG_SPEC'), 'spec'))
setfenv(chunk, setmetatable({ use = function(s) spec = s end }, { __index = _G }))
chunk()
local dir = os.getenv('RLOG_PLUGIN_DIR')

-- Runtimepath customization
if spec.rtp then
  vim.o.runtimepath = vim.o.runtimepath .. ',' .. vim.fn.escape(dir .. '/' .. spec.rtp, '\\,')
end

-- Config for: rlog-ls
if spec.config then
  local code = type(spec.config) == 'function' and string.dump(spec.config) or spec.config
  local ok, err = pcall(assert(loadstring(code, 'config')), 'rlog-ls', { path = dir, loaded = true })
  if not ok then
    _G.rlog_manager_errors = _G.rlog_manager_errors or {}
    table.insert(_G.rlog_manager_errors, 'packer.nvim: Error running config for rlog-ls: ' .. tostring(err))
  end
end
