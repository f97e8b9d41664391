" rlog/1 agent session logs.
autocmd BufRead,BufNewFile *.rlog setfiletype rlog
