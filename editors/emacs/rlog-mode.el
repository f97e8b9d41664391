;;; rlog-mode.el --- Major mode for rlog/1 agent session logs -*- lexical-binding: t -*-

;; URL: https://github.com/rlog-ls/rlog-ls
;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1"))
;; Keywords: languages, tools

;;; Commentary:

;; `rlog-mode' for *.rlog files: AI-agent session logs in the rlog/1 format
;; (u: user, a: agent, th: thinking, t!: tool start, o: observation, @phase
;; ...).  Every line is classified as the rlog-ls parser does (the header is
;; found by looking at the whole buffer, as the parser does, so a log without
;; a header is coloured as a body), and coloured with faces that inherit
;; from the standard font-lock faces.
;;
;; With eglot (built into Emacs 29; the elpa-eglot package on Debian 12), the
;; rlog-ls language server gives diagnostics, hover, go to definition,
;; references and the outline:
;;
;;   (add-to-list 'load-path "/path/to/rlog-ls/editors/emacs")
;;   (require 'rlog-mode)
;;   (add-hook 'rlog-mode-hook #'eglot-ensure)
;;
;; M-x rlog-view opens a session file the server reads (a Claude Code
;; transcript, an ATIF trajectory ...) as a read-only rlog buffer, which the
;; server keeps up to date while the file grows.

;;; Code:

(defgroup rlog nil
  "rlog/1 agent session logs."
  :group 'languages
  :prefix "rlog-")

(defcustom rlog-ls-program "rlog-ls"
  "The rlog-ls language server: a command on `exec-path', or a file name."
  :type 'string)

;;; Faces

(defface rlog-prefix-face '((t :inherit font-lock-keyword-face))
  "Line prefixes: u: a: t!: o: ...")
(defface rlog-name-face '((t :inherit font-lock-function-name-face))
  "Tool, skill, plan and MCP names.")
(defface rlog-subagent-face '((t :inherit font-lock-type-face))
  "Subagent types (x:Explore).")
(defface rlog-mode-name-face '((t :inherit font-lock-constant-face))
  "Modes (m: auto).")
(defface rlog-phase-face '((t :inherit (bold font-lock-function-name-face)))
  "Phase names (@phase explore).")
(defface rlog-event-face '((t :inherit font-lock-preprocessor-face))
  "Lifecycle events (@start, @init, @end) and the @phase keyword.")
(defface rlog-key-face '((t :inherit font-lock-variable-name-face))
  "Metadata keys (id=, ts=, tokens_in=) and header keys.")
(defface rlog-id-face '((t :inherit font-lock-constant-face))
  "Call, message and session ids.")
(defface rlog-number-face '((t :inherit font-lock-constant-face))
  "Numbers and timestamps.")
(defface rlog-string-face '((t :inherit font-lock-string-face))
  "Values: quoted, JSON, and plain ones.")
(defface rlog-arrow-face '((t :inherit font-lock-builtin-face))
  "The result arrow.")
(defface rlog-ascii-arrow-face '((t :inherit font-lock-warning-face))
  "An ASCII -> where the result arrow was probably meant.")
(defface rlog-status-ok-face '((t :inherit success))
  "[ok], [done] ...")
(defface rlog-status-error-face '((t :inherit error))
  "[error], [err: ...] ...")
(defface rlog-status-running-face '((t :inherit warning))
  "[running], [started], [pending] ...")
(defface rlog-status-face '((t :inherit font-lock-constant-face))
  "Any other [status] after the arrow.")
(defface rlog-marker-face '((t :inherit font-lock-builtin-face))
  "Blob and redaction markers.")
(defface rlog-flag-face '((t :inherit font-lock-warning-face))
  "The word interrupted.")
(defface rlog-comment-face '((t :inherit font-lock-comment-face))
  "Comments, and the ignored lines before the header.")
(defface rlog-thinking-face '((t :inherit italic))
  "The text of thinking lines.")
(defface rlog-delimiter-face '((t :inherit font-lock-preprocessor-face))
  "The header's --- lines.")

;;; Classifying lines, as grammar/scan.go does

(defconst rlog--ws "[ \t\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
  "Unicode White_Space, which the parser trims.")
(defconst rlog--w "[[:alnum:]_]" "A word character (the parser's \\w).")
(defconst rlog--delimiter-re (concat "^" rlog--ws "*---" rlog--ws "*$"))

(defconst rlog--kinds
  ;; The parser's rules, in its order; the first that matches wins.  Each is
  ;; matched after the leading whitespace.  PREFIX is the prefix's length,
  ;; NAME-RE matches the name right after it (group 1).
  `((user "u:")
    (agent "a:")
    (tool_start "t!:" ,(concat "\\(" rlog--w "[^ \t\n]*\\)"))
    (tool_progress "t~:" ,(concat "\\(" rlog--w "[^ \t\n]*\\)"))
    (tool "t:" ,(concat "\\(" rlog--w "[^ \t\n]*\\)"))
    (observation "o:")
    (skill "s:" "\\([^ \t\n]+\\)[ \t]+[^ \t\n]")
    (plan "p:" ,(concat "\\(" rlog--w "+\\)"))
    (mode "m:" ,(concat "[ \t]*\\(" rlog--w "+\\)"))
    (recall "r:")
    (subagent "x:" ,(concat "\\(" rlog--w "+\\)"))
    (mcp "c:" ,(concat "\\(" rlog--w "+\\." rlog--w "+\\)"))
    (question "q:")
    (comment "#")
    (phase "@phase" ,(concat rlog--ws "+\\(" rlog--w "+\\)"))
    (lifecycle "@" ,(concat "\\(" rlog--w "+\\)"))
    (thinking "th:")
    (todos "td:"))
  "Line kinds: (KIND PREFIX [NAME-RE]).")

(defun rlog--classify ()
  "Classify the line at point, which must be at its beginning.
Return (KIND PREFIX-START PREFIX-END NAME-START NAME-END)."
  (let ((bol (point))
        (eol (line-end-position)))
    (cond
     ((looking-at (concat rlog--ws "*$")) (list 'empty))
     ((looking-at "  \\|\t") (list 'continuation))
     (t
      (save-excursion
        (skip-chars-forward " \t\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000" eol)
        (let ((start (point)) result)
          (catch 'done
            (dolist (k rlog--kinds)
              (let ((prefix (nth 1 k)) (name-re (nth 2 k)))
                (when (and (<= (+ start (length prefix)) eol)
                           (string= prefix (buffer-substring-no-properties start (+ start (length prefix)))))
                  (goto-char (+ start (length prefix)))
                  (cond
                   ((null name-re)
                    (setq result (list (car k) start (point))))
                   ((looking-at name-re)
                    (setq result (list (car k) start (+ start (length prefix)) (match-beginning 1) (match-end 1))))
                   ;; @phase without a name is a lifecycle line; other
                   ;; prefixes without their name are unknown lines.
                   ((eq (car k) 'phase) nil)
                   (t (throw 'done nil)))
                  (when result (throw 'done nil))))))
          (ignore bol)
          (or result (list 'unknown))))))))

(defun rlog-line-kind ()
  "Return the kind of the line at point, as the rlog-ls parser names it."
  (save-excursion
    (forward-line 0)
    (let ((layout (rlog--layout)) (pos (point)))
      (cond
       ((and (nth 0 layout) (< pos (nth 0 layout))) 'preamble)
       ((and (nth 0 layout) (or (= pos (nth 0 layout)) (and (nth 1 layout) (= pos (nth 1 layout)))))
        'header_delimiter)
       ((and (nth 0 layout) (< pos (nth 2 layout))) 'header)
       (t (car (rlog--classify)))))))

;;; Where the preamble, header and body are

(defvar-local rlog--layout-cache nil
  "(TICK HEADER-START HEADER-END BODY-START).")

(defun rlog--compute-layout ()
  "Return (HEADER-START HEADER-END BODY-START) as line-beginning positions.
HEADER-START is the first line whose trimmed text is ---, HEADER-END the
next one; without a closing one the header ends at the first empty or
recognisable line (grammar/tree.go findRegion).  Both are nil when there
is no header: the whole buffer is the body."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char (point-min))
      (if (not (re-search-forward rlog--delimiter-re nil t))
          (list nil nil (point-min))
        (let ((hstart (line-beginning-position)) hend body)
          (forward-line 1)
          (let ((after (point)))
            (if (re-search-forward rlog--delimiter-re nil t)
                (progn (setq hend (line-beginning-position))
                       (forward-line 1)
                       (setq body (point)))
              (goto-char after)
              (setq body (point-max))
              (while (and (< (point) (point-max)) (= body (point-max)))
                (unless (eq (car (rlog--classify)) 'unknown)
                  (setq body (point)))
                (forward-line 1)))
            (when (and (null hend) (= body (point-max)) (> (point-max) after))
              ;; Only header lines: the body starts after the last one.
              (setq body (point-max)))
            (list hstart hend body)))))))

(defun rlog--layout ()
  "The buffer's layout, cached until the buffer changes."
  (let ((tick (buffer-chars-modified-tick)))
    (unless (eq (car rlog--layout-cache) tick)
      (setq rlog--layout-cache (cons tick (rlog--compute-layout))))
    (cdr rlog--layout-cache)))

(defun rlog--after-change (beg end _len)
  "Refontify everything when an edit between BEG and END moves the header."
  (let ((old (cdr rlog--layout-cache)))
    (when old
      (let ((new (progn (setq rlog--layout-cache nil) (rlog--layout))))
        (unless (equal (mapcar (lambda (p) (and p (line-number-at-pos p))) old)
                       (mapcar (lambda (p) (and p (line-number-at-pos p))) new))
          (font-lock-flush))
        (ignore beg end)))))

;;; Fontification

(defconst rlog--ok-re "\\[\\(?:ok\\|OK\\|done\\|success\\|succeeded\\|passed\\|completed\\|loaded\\|found\\|selected\\(?::[^]\n]*\\)?\\)\\]")
(defconst rlog--error-re "\\[\\(?:error\\|ERROR\\|err\\(?::[^]\n]*\\)?\\|error:[^]\n]*\\|failed\\|failure\\|fail\\|timeout\\|timed out\\|cancelled\\|canceled\\|interrupted\\|denied\\|rejected\\)\\]")
(defconst rlog--running-re "\\[\\(?:running\\|started\\|pending\\|in_progress\\|in progress\\|waiting\\|queued\\|partial\\)\\]")
(defconst rlog--marker-re "@blob[ \t]+sha256=[0-9a-f]+\\|\\[redacted:[[:alnum:]_]+\\]\\|\\[REDACTED\\]\\|<REDACTED\\(?::[^>\n]*\\)?>")
(defconst rlog--key-re "\\(?:^\\|[ \t]\\)\\([[:alnum:]_][[:alnum:]_.-]*\\)=")
(defconst rlog--id-keys-re "\\`\\(?:\\(?:[[:alnum:]_.]+-\\)?id\\|tid\\|span\\|parent\\|uuid\\|session\\|[[:alnum:]_.-]*_id\\)\\'")

(defun rlog--face (beg end face)
  "Put FACE on BEG..END."
  (when (< beg end)
    (put-text-property beg end 'face face)))

(defun rlog--json-end (pos eol)
  "The end of the JSON value at POS (its balancing bracket), or EOL."
  (let ((depth 0) (in-str nil) (i pos) (end nil))
    (while (and (< i eol) (not end))
      (let ((c (char-after i)))
        (cond
         (in-str (cond ((eq c ?\\) (setq i (1+ i)))
                       ((eq c ?\") (setq in-str nil))))
         ((eq c ?\") (setq in-str t))
         ((memq c '(?\{ ?\[)) (setq depth (1+ depth)))
         ((memq c '(?\} ?\])) (setq depth (1- depth))
          (when (= depth 0) (setq end (1+ i))))))
      (setq i (1+ i)))
    (or end eol)))

(defun rlog--value (key vbeg eol)
  "Colour the value of KEY starting at VBEG; return where it ends."
  (let ((c (char-after vbeg)))
    (cond
     ((>= vbeg eol) vbeg)
     ((save-excursion (goto-char vbeg) (looking-at rlog--marker-re))
      (rlog--face vbeg (match-end 0) 'rlog-marker-face) (match-end 0))
     ((eq c ?\")
      (let ((end (save-excursion
                   (goto-char (1+ vbeg))
                   (if (re-search-forward "\"\\(?:[ \t]*$\\|[ \t]*→\\|[ \t]+[[:alnum:]_][[:alnum:]_.-]*=\\)" eol t)
                       (1+ (match-beginning 0))
                     (if (search-forward "\"" eol t) (point) eol)))))
        (rlog--face vbeg end 'rlog-string-face) end))
     ((memq c '(?\{ ?\[))
      (let ((end (rlog--json-end vbeg eol)))
        (rlog--face vbeg end 'rlog-string-face) end))
     (t
      (let ((end (save-excursion (goto-char vbeg) (skip-chars-forward "^ \t" eol) (point)))
            (text nil))
        (setq text (buffer-substring-no-properties vbeg end))
        (cond
         ((string= key "ts") (rlog--face vbeg end 'rlog-number-face))
         ((string-match-p rlog--id-keys-re key)
          ;; The parser reads an id up to its first non-word character.
          (let ((idend (save-excursion (goto-char vbeg) (skip-chars-forward "[:alnum:]_" end) (point))))
            (rlog--face vbeg (if (string-match-p "\\`\\(?:[[:alnum:]_.]+-\\)?id\\'" key) idend end) 'rlog-id-face)
            (when (string-match-p "\\`\\(?:[[:alnum:]_.]+-\\)?id\\'" key)
              (rlog--face idend end 'rlog-string-face))))
         ((string-match-p "\\`[-+]?[0-9]+\\(?:\\.[0-9]+\\)?\\(?:/[0-9]+\\)?\\'" text)
          (rlog--face vbeg end 'rlog-number-face))
         (t (rlog--face vbeg end 'rlog-string-face)))
        end)))))

(defun rlog--inline (from eol ascii-arrow)
  "Colour metadata, markers, the result and its status in FROM..EOL.
ASCII-ARROW says whether a stray -> is flagged (lines that take a result)."
  (save-excursion
    (goto-char from)
    (let ((arrow (save-excursion (search-forward "→" eol t))))
      (when arrow
        (rlog--face (1- arrow) arrow 'rlog-arrow-face)
        (save-excursion
          (goto-char arrow)
          (skip-chars-forward " \t" eol)
          (when (looking-at "\\[")
            (cond ((looking-at rlog--ok-re) (rlog--face (point) (match-end 0) 'rlog-status-ok-face))
                  ((looking-at rlog--error-re) (rlog--face (point) (match-end 0) 'rlog-status-error-face))
                  ((looking-at rlog--running-re) (rlog--face (point) (match-end 0) 'rlog-status-running-face))
                  ((looking-at "\\[redacted:") nil)
                  ((looking-at "\\[[^]\n]*\\]") (rlog--face (point) (match-end 0) 'rlog-status-face))))))
      ;; Later arrows that start a word are arrows too (→ Next ready issue).
      (save-excursion
        (while (re-search-forward "\\(?:^\\|[ \t]\\)\\(→\\)" eol t)
          (rlog--face (match-beginning 1) (match-end 1) 'rlog-arrow-face)))
      (when (and ascii-arrow (not arrow))
        (save-excursion
          (when (re-search-forward "[ \t]\\(->\\)\\(?:[ \t]\\|$\\)" eol t)
            (rlog--face (match-beginning 1) (match-end 1) 'rlog-ascii-arrow-face))))
      (save-excursion
        (while (re-search-forward rlog--marker-re eol t)
          (rlog--face (match-beginning 0) (match-end 0) 'rlog-marker-face)))
      (save-excursion
        (while (re-search-forward "\\(?:^\\|[ \t]\\)\\(interrupted\\)\\(?:[ \t]\\|$\\)" eol t)
          (rlog--face (match-beginning 1) (match-end 1) 'rlog-flag-face)
          (goto-char (match-end 1))))
      (while (re-search-forward rlog--key-re eol t)
        (let ((key (match-string-no-properties 1)) (kb (match-beginning 1)) (ke (match-end 1)))
          (rlog--face kb ke 'rlog-key-face)
          (goto-char (rlog--value key (1+ ke) eol)))))))

(defun rlog--fontify-header-line (bol)
  "Colour the YAML header line that starts at BOL."
  (save-excursion
    (goto-char bol)
    (cond
     ((looking-at "[ \t]*\\(#.*\\)$") (rlog--face (match-beginning 1) (match-end 1) 'rlog-comment-face))
     ((looking-at "[ \t]*\\(-\\)\\(?:[ \t]+\\(.*?\\)\\)?[ \t]*$")
      (rlog--face (match-beginning 1) (match-end 1) 'rlog-prefix-face)
      (when (match-beginning 2) (rlog--face (match-beginning 2) (match-end 2) 'rlog-string-face)))
     ((looking-at "[ \t]*\\([^ \t\n#:\"'][^:\n]*?\\)[ \t]*:\\(?:[ \t]+\\(.*?\\)\\)?[ \t]*$")
      (rlog--face (match-beginning 1) (match-end 1) 'rlog-key-face)
      (when (match-beginning 2)
        (let* ((vb (match-beginning 2)) (ve (match-end 2))
               (v (buffer-substring-no-properties vb ve)))
          (when (string-match "\\`\\([^\"'].*?\\)[ \t]+\\(#.*\\)\\'" v)
            (rlog--face (+ vb (match-beginning 2)) ve 'rlog-comment-face)
            (setq ve (+ vb (match-end 1)) v (match-string 1 v)))
          (rlog--face vb ve (if (string-match-p "\\`\\(?:[-+]?[0-9]+\\(?:\\.[0-9]+\\)?\\|true\\|false\\|yes\\|no\\|null\\|~\\)\\'" v)
                                'rlog-number-face
                              'rlog-string-face))))))))

(defun rlog--fontify-line (bol eol)
  "Classify the line BOL..EOL, record its kind and colour it."
  (goto-char bol)
  (let* ((layout (rlog--layout))
         (hs (nth 0 layout)) (he (nth 1 layout)) (body (nth 2 layout))
         (kind
          (cond
           ((and hs (< bol hs)) 'preamble)
           ((and hs (or (= bol hs) (and he (= bol he)))) 'header_delimiter)
           ((and hs (< bol body)) 'header))))
    (pcase kind
      ('preamble (rlog--face bol eol 'rlog-comment-face))
      ('header_delimiter (rlog--face bol eol 'rlog-delimiter-face))
      ('header (rlog--fontify-header-line bol))
      (_
       (let* ((c (rlog--classify)) (k (car c)))
         (setq kind k)
         (pcase k
           ((or 'empty 'unknown 'continuation) (rlog--inline bol eol nil))
           ('comment (rlog--face (nth 1 c) eol 'rlog-comment-face))
           (_
            (rlog--face (nth 1 c) (nth 2 c)
                        (if (memq k '(phase lifecycle)) 'rlog-event-face 'rlog-prefix-face))
            (when (nth 3 c)
              (rlog--face (nth 3 c) (nth 4 c)
                          (pcase k
                            ('subagent 'rlog-subagent-face)
                            ('mode 'rlog-mode-name-face)
                            ('phase 'rlog-phase-face)
                            ('lifecycle 'rlog-event-face)
                            (_ 'rlog-name-face))))
            (let ((from (or (nth 4 c) (nth 2 c))))
              (when (eq k 'thinking) (rlog--face from eol 'rlog-thinking-face))
              (rlog--inline from eol (memq k '(tool_start tool observation skill plan recall subagent mcp question)))))))))
    (put-text-property bol (min (1+ eol) (point-max)) 'rlog-kind kind)))

(defun rlog--fontify-region (beg end &optional loudly)
  "Fontify the whole lines between BEG and END.
This is the mode's `font-lock-fontify-region-function'; LOUDLY is ignored."
  (ignore loudly)
  (save-excursion
    (save-match-data
      (with-silent-modifications
        (goto-char beg)
        (forward-line 0)
        (setq beg (point))
        (goto-char end)
        (unless (bolp) (forward-line 1))
        (setq end (point))
        (font-lock-unfontify-region beg end)
        (remove-text-properties beg end '(rlog-kind nil))
        (goto-char beg)
        (while (< (point) end)
          (let ((bol (point)) (eol (line-end-position)))
            (rlog--fontify-line bol eol)
            (goto-char bol)
            (forward-line 1)
            (when (= (point) bol) (goto-char end))))
        `(jit-lock-bounds ,beg . ,end)))))

;;; The mode

(defvar rlog-mode-syntax-table
  (let ((st (make-syntax-table)))
    ;; Ids and names keep hyphens and underscores (M-f, symbol at point).
    (modify-syntax-entry ?_ "_" st)
    (modify-syntax-entry ?- "_" st)
    (modify-syntax-entry ?\" "." st) ; quotes in logs are rarely balanced
    (modify-syntax-entry ?\' "." st)
    st)
  "Syntax table for `rlog-mode'.")

;;;###autoload
(define-derived-mode rlog-mode prog-mode "rlog"
  "Major mode for rlog/1 agent session logs.
Colours each line by its kind as the rlog-ls parser classifies it.  For
diagnostics, hover, definitions and the outline, run `eglot' (the rlog-ls
language server is registered with it)."
  :syntax-table rlog-mode-syntax-table
  (setq-local comment-start "# ")
  (setq-local comment-start-skip "#+[ \t]*")
  (setq-local comment-use-syntax nil)
  (setq-local truncate-lines t)
  (setq-local font-lock-defaults '(nil t))
  (setq-local font-lock-fontify-region-function #'rlog--fontify-region)
  (setq-local font-lock-extra-managed-props '(rlog-kind))
  (add-hook 'after-change-functions #'rlog--after-change nil t))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.rlog\\'" . rlog-mode))

;;; eglot

(defun rlog--eglot-contact (&optional _interactive)
  "How eglot starts the rlog-ls language server."
  (list rlog-ls-program "serve"))

(defvar eglot-server-programs)

;;;###autoload
(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs '(rlog-mode . rlog--eglot-contact)))

;;; Views of session files

;; A view is a session file the server reads (a Claude Code transcript under
;; ~/.claude/projects, an ATIF trajectory ...) shown as a read-only rlog
;; log: the server converts it (rlog/sessionView) and gives the view a URI of
;; its own, rlog-view: and the file's path with ".rlog" after it; the view's
;; lines are joined to the file (hover shows a line's full record,
;; `xref-find-definitions' opens it), and while the file grows the server
;; sends the edits that keep the view up to date (rlog/sessionViewChanged).
;; eglot names a document by its file, and a view has none: the view's
;; buffer keeps its URI in `rlog--view-uri', which the functions below give
;; eglot in place of a file's.

(defvar-local rlog--view-uri nil
  "The URI of the rlog view this buffer shows, or nil.")

(defvar eglot--versioned-identifier)
(defvar eglot--managed-mode)
(declare-function eglot "eglot")
(declare-function eglot-current-server "eglot")
(declare-function eglot--current-project "eglot")
(declare-function eglot--managed-mode "eglot")
(declare-function eglot--signal-textDocument/didOpen "eglot")
(declare-function eglot--signal-textDocument/didChange "eglot")
(declare-function eglot--apply-text-edits "eglot")
(declare-function eglot--path-to-uri "eglot")
(declare-function jsonrpc-request "jsonrpc")

(defun rlog--view-identifier (identify &rest args)
  "Around eglot's TextDocumentIdentifier (IDENTIFY, ARGS): a view's own URI."
  (if rlog--view-uri
      (list :uri rlog--view-uri)
    (apply identify args)))

(defun rlog--view-buffer (uri)
  "The live buffer of the view URI, or nil."
  (seq-find (lambda (b) (equal (buffer-local-value 'rlog--view-uri b) uri))
            (buffer-list)))

(defun rlog--view-server ()
  "The rlog-ls server of the current buffer's project, started if needed."
  (or (eglot-current-server)
      (progn
        (eglot '(rlog-mode) (eglot--current-project) 'eglot-lsp-server
               (rlog--eglot-contact) "rlog")
        (let ((deadline (+ (float-time) 30)))
          (while (and (not (eglot-current-server)) (< (float-time) deadline))
            (accept-process-output nil 0.05)))
        (or (eglot-current-server) (user-error "rlog: the language server did not start")))))

;;;###autoload
(defun rlog-view (file)
  "Show FILE, a session file the rlog-ls server reads, as a read-only rlog log.
FILE is a Claude Code transcript (~/.claude/projects/PROJECT/SESSION.jsonl),
an ATIF trajectory, a REPLAY.jsonl ...; interactively, the current buffer's
file by default.  The view is what `rlog-ls convert --to rlog' writes of it,
with the file as its companion: eldoc's hover on a line shows its full
record and `xref-find-definitions' opens the file at it.  While the file
grows, the view follows it.  Needs eglot."
  (interactive
   (list (read-file-name "Session file: " nil buffer-file-name t
                         (and buffer-file-name (file-name-nondirectory buffer-file-name)))))
  (require 'eglot)
  (advice-add 'eglot--TextDocumentIdentifier :around #'rlog--view-identifier)
  (let* ((file (expand-file-name file))
         (name (file-name-nondirectory file))
         (buf (get-buffer-create (format "*rlog view: %s*" name)))
         view)
    (with-current-buffer buf
      (unless rlog--view-uri
        (setq default-directory (file-name-directory file))
        (rlog-mode)
        (setq view (condition-case err
                       (jsonrpc-request (rlog--view-server) :rlog/sessionView
                                        `(:textDocument (:uri ,(eglot--path-to-uri file))))
                     (jsonrpc-error
                      (kill-buffer buf)
                      (user-error "rlog: %s cannot be opened as rlog: %s" name
                                  (or (alist-get 'jsonrpc-error-message (cdr err)) err)))))
        (let ((inhibit-read-only t))
          (erase-buffer)
          (insert (plist-get view :text))
          (goto-char (point-min)))
        (set-buffer-modified-p nil)
        (setq rlog--view-uri (plist-get view :uri))
        (setq buffer-read-only t)
        (eglot--managed-mode 1)
        (eglot--signal-textDocument/didOpen)
        (message "rlog: %s (%s) as rlog: %s" name (plist-get view :description)
                 (replace-regexp-in-string "\\`[^:\n]*: \\|\n.*" "" (plist-get view :losses)))))
    (pop-to-buffer buf)
    buf))

;;; Sessions: this folder's sessions from the server's sessions index.

(defun rlog--sessions (params)
  "The server's rlog/sessions answer to PARAMS, for the current folder."
  (require 'eglot)
  (condition-case err
      ;; The server is the one of an rlog buffer of this folder's project.
      (let ((dir default-directory))
        (with-temp-buffer
          (setq default-directory dir)
          (let ((major-mode 'rlog-mode))
            (jsonrpc-request (rlog--view-server) :rlog/sessions params))))
    (jsonrpc-error
     (user-error "rlog: the sessions could not be listed: %s"
                 (or (alist-get 'jsonrpc-error-message (cdr err)) err)))))

(defun rlog-session-label (row)
  "A line for ROW, a row of rlog/sessions: when, agent, title and figures."
  (let ((start (plist-get row :start))
        (title (plist-get row :title))
        (agent (plist-get row :agent))
        (cost (plist-get row :cost_usd)))
    (format "%s  %s  %s  (%d calls%s%s%s)"
            (if (stringp start) (replace-regexp-in-string "T" " " (substring start 0 (min 16 (length start)))) "—")
            (if (and (stringp agent) (> (length agent) 0)) agent (plist-get row :format))
            (if (and (stringp title) (> (length title) 0)) title
              (file-name-nondirectory (plist-get row :file)))
            (plist-get row :tool_calls)
            (if (> (plist-get row :errors) 0) (format ", %d errors" (plist-get row :errors)) "")
            (if (> (plist-get row :subagents) 0) (format ", %d sub-agents" (plist-get row :subagents)) "")
            (if (numberp cost) (format ", $%.4f" cost) ""))))

(defun rlog-open-session (row)
  "Open ROW, a row of rlog/sessions: an rlog file as it is, another as its view."
  (if (equal (plist-get row :format) "rlog")
      (find-file (plist-get row :file))
    (rlog-view (plist-get row :file))))

;;;###autoload
(defun rlog-sessions ()
  "Choose one of this folder's sessions, newest first, and open it.
The list is the rlog-ls server's (the sessions index in the user's cache
folder): this folder's logs and what Claude Code, Codex CLI and Gemini CLI
keep of the sessions run in it.  An rlog file opens as it is, another
session as its rlog view (`rlog-view').  Needs eglot."
  (interactive)
  (let* ((rows (append (plist-get (rlog--sessions '(:paths [])) :sessions) nil))
         (labels (mapcar (lambda (r) (cons (rlog-session-label r) r)) rows)))
    (unless rows (user-error "rlog: no sessions of this folder were found"))
    (let ((choice (completing-read "Session: " (mapcar #'car labels) nil t)))
      (rlog-open-session (cdr (assoc choice labels))))))

;;;###autoload
(defun rlog-sessions-touched (file)
  "List the calls of this folder's sessions that changed FILE, newest first.
One line per call, SESSIONFILE:LINE: tool: target, in a `grep-mode'
buffer: `next-error' and RET open the session file at the call.  Needs
eglot."
  (interactive (list (read-file-name "Sessions that changed: " nil buffer-file-name t
                                     (and buffer-file-name (file-name-nondirectory buffer-file-name)))))
  (let* ((file (expand-file-name file))
         (changes (append (plist-get (rlog--sessions `(:touched ,file)) :changes) nil))
         (buf (get-buffer-create "*rlog sessions touched*")))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "Sessions that changed %s\n\n" file))
        (dolist (c changes)
          (insert (format "%s:%d: %s: %s\n" (plist-get c :file) (plist-get c :line)
                          (plist-get c :tool) (plist-get c :target)))))
      (grep-mode)
      (goto-char (point-min)))
    (if (null changes)
        (message "rlog: no session of this folder changed %s" (file-name-nondirectory file))
      (pop-to-buffer buf))
    buf))

;;; Two runs side by side: each session's rlog view, masked, in ediff.

(declare-function ediff-buffers "ediff")

(defun rlog--session-uri ()
  "The URI of the session the current buffer shows, or nil.
A view's own URI (the server reads the file it names), else the file's."
  (require 'eglot)
  (cond (rlog--view-uri rlog--view-uri)
        (buffer-file-name (eglot--path-to-uri buffer-file-name))))

(defun rlog--masked-view (uri)
  "The server's rlog/maskedView answer for URI, a session file's or a view's."
  (condition-case err
      (let ((dir default-directory))
        (with-temp-buffer
          (setq default-directory dir)
          (let ((major-mode 'rlog-mode))
            (jsonrpc-request (rlog--view-server) :rlog/maskedView
                             `(:textDocument (:uri ,uri))))))
    (jsonrpc-error
     (user-error "rlog: cannot compare: %s"
                 (or (alist-get 'jsonrpc-error-message (cdr err)) err)))))

(defun rlog--masked-buffer (side view)
  "A read-only buffer of VIEW (rlog/maskedView's answer) for SIDE, A or B."
  (let ((buf (get-buffer-create (format "*rlog masked %s: %s*" side (plist-get view :name)))))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (plist-get view :text))
        (goto-char (point-min)))
      ;; Coloured as rlog, but not given to the server: masked values are
      ;; no log's, and a hook's `eglot-ensure' would check them.
      (let ((rlog-mode-hook nil))
        (rlog-mode))
      (set-buffer-modified-p nil)
      (setq buffer-read-only t))
    buf))

;;;###autoload
(defun rlog-compare (other &optional first)
  "Compare the current buffer's session with OTHER in ediff, masked.
Each side is the session's rlog view (the rlog-ls server's
rlog/maskedView, for any format it reads: an .rlog log, a Claude Code
transcript, a Codex rollout ...) with what differs between any two runs
masked (ids, times, token counts, durations, costs, the session's
folder), so that what ediff shows is behaviour.  The buffers are
*rlog masked A: NAME* (this session) and *rlog masked B: NAME* (OTHER),
read only.  FIRST, when given, is the file of side A in place of the
current buffer's session.  Needs eglot."
  (interactive (list (read-file-name "Compare with: " nil nil t)))
  (require 'eglot)
  (require 'ediff)
  (let* ((uri-a (if first (eglot--path-to-uri (expand-file-name first))
                  (or (rlog--session-uri)
                      (user-error "rlog: open a session (an .rlog log, a transcript ...) to compare it with another"))))
         (a (rlog--masked-view uri-a))
         (b (rlog--masked-view (eglot--path-to-uri (expand-file-name other)))))
    (ediff-buffers (rlog--masked-buffer "A" a) (rlog--masked-buffer "B" b))))

(with-eval-after-load 'eglot
  (cl-defmethod eglot-handle-notification
    (_server (_method (eql rlog/sessionsChanged)) &rest _)
    "The sessions list changed: `rlog-sessions' asks for it anew each time."
    nil)
  (cl-defmethod eglot-handle-notification
    (_server (_method (eql rlog/sessionViewChanged)) &key textDocument edits &allow-other-keys)
    "Apply the edits that bring an open view up to date, for its version."
    (let ((buf (rlog--view-buffer (plist-get textDocument :uri))))
      (when (and buf (equal (plist-get textDocument :version)
                            (buffer-local-value 'eglot--versioned-identifier buf)))
        (with-current-buffer buf
          (let ((inhibit-read-only t))
            (eglot--apply-text-edits edits (plist-get textDocument :version)))
          (set-buffer-modified-p nil)
          ;; Tell the server now, not after eglot's idle time.
          (eglot--signal-textDocument/didChange)))))
  (cl-defmethod eglot-handle-notification :around
    (_server (_method (eql textDocument/publishDiagnostics)) &key uri &allow-other-keys)
    "A view's diagnostics go to its buffer, which visits no file."
    (let ((view (and (stringp uri) (rlog--view-buffer uri))))
      (if (not view)
          (cl-call-next-method)
        (cl-letf (((symbol-function 'find-buffer-visiting) (lambda (&rest _) view)))
          (cl-call-next-method))))))

(provide 'rlog-mode)

;;; rlog-mode.el ends here
