-- Neovim 0.11+: with this folder on 'runtimepath', vim.lsp.enable('rlog_ls')
-- starts rlog-ls for rlog buffers.
return {
  cmd = { 'rlog-ls' },
  filetypes = { 'rlog' },
  root_markers = { '.git' },
  settings = { rlog = {} },
}
