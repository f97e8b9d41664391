" rlog/1 agent session logs: buffer settings.
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1

setlocal commentstring=#\ %s comments=:#
" Keep ids, UUIDs and hyphenated names whole for *, w and completion.
setlocal iskeyword=@,48-57,_,192-255,-
" Log lines are long; do not wrap them.
setlocal nowrap
let b:undo_ftplugin = 'setlocal commentstring< comments< iskeyword< wrap<'
