" Vim syntax file
" Language:    rlog/1 agent session logs (*.rlog)
" Maintainer:  rlog-ls <https://github.com/rlog-ls/rlog-ls>
"
" Mirrors grammar/rlog.tmLanguage.json: every line is one of the parser's 21
" kinds, tried in the parser's order (here the reverse, since Vim prefers the
" item defined last when several start at the same place), inside the
" preamble / header / body layout. editors/editors_test.go checks that Neovim
" classifies every line of the corpus as the Go parser does.

if exists('b:current_syntax')
  finish
endif

let s:cpo_save = &cpo
set cpo&vim

syn case match
" \k: word characters, Unicode letters included (the parser's \w).
syn iskeyword @,48-57,_,192-255

" Unicode White_Space, as the parser trims it; and the start of a line that
" is not a continuation (two spaces or a tab first).
let s:ws = '[ \t\x0b\x0c\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]'
let s:bol = '^\%(  \|\t\)\@!' . s:ws . '*'
let s:delim = s:ws . '*---' . s:ws . '*$'
" A line that ends a header left without its closing '---': one that cannot
" be YAML and is a recognised body line.
let s:strong = s:bol . '\%(@\k\|t[!~]\=:\k\|s:\S\+\s\+\S\|p:\k\|x:\k\|c:\k\+\.\k\|m:\k\|\%(u\|a\|o\|q\|r\|th\|td\):\%(\s\|$\)\@!\)'

" --- values and markers inside lines -----------------------------------
" key=value: the key decides how the value after '=' is shown. Lookbehinds
" are avoided (\zs instead): they make Vim slow on long lines.
syn match rlogKey /\%(^\|\s\)\zs\k[[:alnum:]_.-]*=\@=/ contained nextgroup=rlogEquals
syn match rlogKey /\%(^\|\s\)\zs\%(tid\|span\|parent\|uuid\|session\|[[:alnum:]_.-]*_id\)=\@=/ contained nextgroup=rlogEqualsRef
syn match rlogKey /\%(^\|\s\)\zs\%([[:alnum:]_.]\+-\)\=id=\@=/ contained nextgroup=rlogEqualsId
syn match rlogKey /\%(^\|\s\)\zsts=\@=/ contained nextgroup=rlogEqualsTs
syn match rlogEquals /=/ contained nextgroup=rlogValue,rlogNumber,rlogString,rlogJson,rlogMarker
syn match rlogEqualsRef /=/ contained nextgroup=rlogValue,rlogRef,rlogString,rlogJson,rlogMarker
syn match rlogEqualsId /=/ contained nextgroup=rlogValue,rlogId,rlogString,rlogJson,rlogMarker
syn match rlogEqualsTs /=/ contained nextgroup=rlogTimestamp
syn match rlogValue /[^ \t"{[]\S*/ contained
syn match rlogNumber /[-+]\=\d\+\%(\.\d\+\)\=\%(\/\d\+\)\=\%(\s\|→\|$\)\@=/ contained
syn match rlogRef /[[:alnum:]_-]\+\%(\s\|→\|$\)\@=/ contained
syn match rlogId /\k\+/ contained
syn match rlogTimestamp /\S\+/ contained
" A quoted value ends at a quote followed by the end, an arrow or another
" key= (real logs hold unbalanced inner quotes); failing that, at the next
" quote or the end of the line.
syn match rlogString /"\%([^"\\]\|\\.\)*\%("\|$\)/ contained
syn match rlogString /"\%([^\\]\|\\.\)\{-}"\%(\s*$\|\s*→\|\s\+\k[[:alnum:]_.-]*=\)\@=/ contained
syn region rlogJson start=/[{[]/ end=/[}\]]\|$/ oneline keepend contained contains=rlogJsonNest,rlogJsonString
syn region rlogJsonNest start=/[{[]/ end=/[}\]]/ oneline contained transparent contains=rlogJsonNest,rlogJsonString
syn region rlogJsonString start=/"/ skip=/\\./ end=/"/ oneline contained
syn match rlogMarker /@blob\s\+sha256=[0-9a-f]\+/ contained
syn match rlogMarker /\[redacted:\k\+\]\|\[REDACTED\]\|<REDACTED\%(:[^>]*\)\=>/ contained
syn match rlogFlag /\%(^\|\s\)\zsinterrupted\S\@!/ contained
syn match rlogAsciiArrow /\s\zs->\%(\s\|$\)\@=\%(.*→\)\@!/ contained
" The result: from the first arrow to the end of the line; a [status] right
" after the arrow (its leading blanks are part of it, so that a key= right
" after the arrow still finds the blank before it).
syn match rlogArrow /→/ contained nextgroup=rlogStatus,rlogStatusOk,rlogStatusError,rlogStatusRunning
syn match rlogStatus /\s*\[\%(redacted:\)\@![^\]]*\]/ contained
syn match rlogStatusRunning /\s*\[\%(running\|started\|pending\|in_progress\|in progress\|waiting\|queued\|partial\)\]/ contained
syn match rlogStatusError /\s*\[\%(error\|ERROR\|err\%(:[^\]]*\)\=\|error:[^\]]*\|failed\|failure\|fail\|timeout\|timed out\|cancelled\|canceled\|interrupted\|denied\|rejected\)\]/ contained
syn match rlogStatusOk /\s*\[\%(ok\|OK\|done\|success\|succeeded\|passed\|completed\|loaded\|found\|selected\%(:[^\]]*\)\=\)\]/ contained
syn match rlogResult /→.*$/ contained contains=rlogArrow,rlogKey,rlogMarker,rlogFlag
syn match rlogTodo /\[\%(pending\|todo\)\]/ contained
syn match rlogTodoActive /\[\%(in_progress\|in progress\|active\)\]/ contained
syn match rlogTodoDone /\[\%(completed\|done\)\]/ contained

syn cluster rlogInline contains=rlogResult,rlogMarker,rlogKey,rlogFlag
syn cluster rlogInlineResult contains=@rlogInline,rlogAsciiArrow

" --- line prefixes and names -------------------------------------------
" A prefix is found from the start of its line; the name after it follows it
" (nextgroup), as a contained item cannot be searched for from the line's
" start once the prefix is matched.
execute 'syn match rlogPrefix /' . s:bol . '\zs\%(u\|a\|o\|r\|q\|th\|td\):/ contained'
execute 'syn match rlogToolPrefix /' . s:bol . '\zst[!~]\=:/ contained nextgroup=rlogToolName'
execute 'syn match rlogSkillPrefix /' . s:bol . '\zss:/ contained nextgroup=rlogSkillName'
execute 'syn match rlogPlanPrefix /' . s:bol . '\zsp:/ contained nextgroup=rlogPlanName'
execute 'syn match rlogModePrefix /' . s:bol . '\zsm:/ contained nextgroup=rlogMode skipwhite'
execute 'syn match rlogSubagentPrefix /' . s:bol . '\zsx:/ contained nextgroup=rlogSubagent'
execute 'syn match rlogMcpPrefix /' . s:bol . '\zsc:/ contained nextgroup=rlogMcpName'
execute 'syn match rlogPhaseKeyword /' . s:bol . '\zs@phase/ contained nextgroup=rlogPhaseName skipwhite'
execute 'syn match rlogEvent /' . s:bol . '\zs@\k\+/ contained'
syn match rlogToolName /\k\S*/ contained
syn match rlogSkillName /\S\+/ contained
syn match rlogPlanName /\k\+/ contained
syn match rlogMode /\k\+/ contained
syn match rlogSubagent /\k\+/ contained
syn match rlogMcpName /\k\+\.\k\+/ contained
syn match rlogPhaseName /\k\+/ contained

" --- body lines: the parser's 21 kinds, last one first ------------------
syn match rlogLineUnknown /^.\+$/ contains=@rlogInline
execute 'syn match rlogLineTodos /' . s:bol . 'td:.*$/ contains=rlogPrefix,rlogTodo,rlogTodoActive,rlogTodoDone,@rlogInline'
execute 'syn match rlogLineThinking /' . s:bol . 'th:.*$/ contains=rlogPrefix,@rlogInline'
execute 'syn match rlogLineLifecycle /' . s:bol . '@\k.*$/ contains=rlogEvent,@rlogInline'
execute 'syn match rlogLinePhase /' . s:bol . '@phase\s\+\k.*$/ contains=rlogPhaseKeyword,@rlogInline'
execute 'syn match rlogLineComment /' . s:bol . '#.*$/'
execute 'syn match rlogLineQuestion /' . s:bol . 'q:.*$/ contains=rlogPrefix,@rlogInlineResult'
execute 'syn match rlogLineMcp /' . s:bol . 'c:\k\+\.\k.*$/ contains=rlogMcpPrefix,@rlogInlineResult'
execute 'syn match rlogLineSubagent /' . s:bol . 'x:\k.*$/ contains=rlogSubagentPrefix,@rlogInlineResult'
execute 'syn match rlogLineRecall /' . s:bol . 'r:.*$/ contains=rlogPrefix,@rlogInlineResult'
execute 'syn match rlogLineMode /' . s:bol . 'm:\s*\k.*$/ contains=rlogModePrefix,@rlogInline'
execute 'syn match rlogLinePlan /' . s:bol . 'p:\k.*$/ contains=rlogPlanPrefix,@rlogInlineResult'
execute 'syn match rlogLineSkill /' . s:bol . 's:\S\+\s\+\S.*$/ contains=rlogSkillPrefix,@rlogInlineResult'
execute 'syn match rlogLineObservation /' . s:bol . 'o:.*$/ contains=rlogPrefix,@rlogInlineResult'
execute 'syn match rlogLineTool /' . s:bol . 't:\k.*$/ contains=rlogToolPrefix,@rlogInlineResult'
execute 'syn match rlogLineToolProgress /' . s:bol . 't\~:\k.*$/ contains=rlogToolPrefix,@rlogInline'
execute 'syn match rlogLineToolStart /' . s:bol . 't!:\k.*$/ contains=rlogToolPrefix,@rlogInlineResult'
execute 'syn match rlogLineAgent /' . s:bol . 'a:.*$/ contains=rlogPrefix,@rlogInline'
execute 'syn match rlogLineUser /' . s:bol . 'u:.*$/ contains=rlogPrefix,@rlogInline'
syn match rlogLineContinuation /^\%(  \|\t\).*$/ contains=@rlogInline
execute 'syn match rlogLineEmpty /^' . s:ws . '*$/'

syn cluster rlogLines contains=rlogLineUnknown,rlogLineTodos,rlogLineThinking,rlogLineLifecycle,rlogLinePhase,rlogLineComment,rlogLineQuestion,rlogLineMcp,rlogLineSubagent,rlogLineRecall,rlogLineMode,rlogLinePlan,rlogLineSkill,rlogLineObservation,rlogLineTool,rlogLineToolProgress,rlogLineToolStart,rlogLineAgent,rlogLineUser,rlogLineContinuation,rlogLineEmpty

" --- layout: preamble, header, body -----------------------------------
" The body follows the header and runs to the end, so a later '---' is just
" an unknown line.
syn region rlogBody start=/^/ end=/\%$/ contained contains=@rlogLines

" Header lines: YAML.
syn match rlogHeaderComment /#.*$/ contained
syn match rlogHeaderConstant /\%(:\s*\|-\s\+\)\zs\%(true\|false\|True\|False\|yes\|no\|null\|Null\|\~\)\s*$/ contained
syn match rlogHeaderNumber /\%(:\s*\|-\s\+\)\zs[-+]\=\d\+\%(\.\d\+\)\=\s*$/ contained
syn match rlogHeaderString /\%(:\s*\|-\s\+\)\zs\%("\%([^"\\]\|\\.\)*"\|'\%([^']\|''\)*'\)/ contained
syn match rlogHeaderKey /^\s*\zs[^ \t#:"'][^:]\{-}\ze\s*:\%(\s\|$\)/ contained
syn match rlogHeaderDash /^\s*\zs-\%(\s\|$\)\@=/ contained

" Lines before the first '---' are ignored by the parser (as in the TextMate
" grammar, a file with no '---' at all stays preamble).
execute 'syn region rlogPreamble start=/\%1l^\%(' . s:delim . '\)\@!\_./ end=/^\%(' . s:delim . '\)\@=/ contains=NONE nextgroup=rlogHeader'
execute 'syn region rlogHeader matchgroup=rlogHeaderDelim start=/^' . s:delim . '/ end=/^' . s:delim . '/ end=/^\%(' . s:strong . '\)\@=/ contains=rlogHeaderKey,rlogHeaderComment,rlogHeaderConstant,rlogHeaderNumber,rlogHeaderString,rlogHeaderDash nextgroup=rlogBody skipnl'

" Syntax state depends on the header at the top: parse from the start, except
" in very long logs, where body lines (which need no context) are found from
" anywhere.
if line('$') < 200000
  syn sync fromstart
else
  syn sync minlines=50
endif

" --- colours: standard groups, so every colour scheme shows them --------
hi def link rlogPrefix Statement
hi def link rlogToolPrefix rlogPrefix
hi def link rlogSkillPrefix rlogPrefix
hi def link rlogPlanPrefix rlogPrefix
hi def link rlogModePrefix rlogPrefix
hi def link rlogSubagentPrefix rlogPrefix
hi def link rlogMcpPrefix rlogPrefix
hi def link rlogToolName Function
hi def link rlogSkillName Function
hi def link rlogPlanName Function
hi def link rlogMcpName Function
hi def link rlogSubagent Type
hi def link rlogMode Constant
hi def link rlogPhaseKeyword PreProc
hi def link rlogPhaseName Title
hi def link rlogEvent PreProc
hi def link rlogLineComment Comment
hi def link rlogPreamble Comment
hi def link rlogKey Identifier
hi def link rlogValue String
hi def link rlogString String
hi def link rlogJson String
hi def link rlogJsonString String
hi def link rlogNumber Number
hi def link rlogTimestamp Number
hi def link rlogId Constant
hi def link rlogRef Constant
hi def link rlogArrow Operator
hi def link rlogAsciiArrow Error
hi def link rlogStatus Constant
hi def link rlogStatusOk Type
hi def link rlogStatusError Error
hi def link rlogStatusRunning Identifier
hi def link rlogTodo Constant
hi def link rlogTodoActive Identifier
hi def link rlogTodoDone Type
hi def link rlogMarker Special
hi def link rlogFlag WarningMsg
hi def link rlogHeaderDelim PreProc
hi def link rlogHeaderKey Identifier
hi def link rlogHeaderComment Comment
hi def link rlogHeaderConstant Constant
hi def link rlogHeaderNumber Number
hi def link rlogHeaderString String

let b:current_syntax = 'rlog'

let &cpo = s:cpo_save
unlet s:cpo_save
