;;; view.el --- M-x rlog-view on a Claude Code transcript in a real Emacs  -*- lexical-binding: t -*-
;; emacs --batch -L editors/emacs -l editors/emacs/test/view.el
;; Env: RLOG_LS (the server binary), RLOG_FILE (a transcript, cut short),
;; RLOG_REST (a file holding its remaining lines), RLOG_LINE, RLOG_COL (1-based
;; line and 0-based column of a line to try, in the view), RLOG_LAST (a line
;; the view has once the rest is written), RLOG_UNREAD (a file the server does
;; not read), RLOG_OUT (JSON result).
(require 'json)
(require 'eglot)
(require 'rlog-mode)
(setq rlog-ls-program (getenv "RLOG_LS"))
(setq eglot-sync-connect t)
(load (expand-file-name "bounds.el" (file-name-directory load-file-name)) nil t)

(defun view-test--wait (pred seconds)
  "Wait up to SECONDS for PRED, reading what the server sends."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall pred)))

(let ((result '()))
  (condition-case err
      (let* ((file (getenv "RLOG_FILE"))
             (view (with-current-buffer (find-file-noselect file)
                     (rlog-view file))))
        (with-current-buffer view
          (push (cons 'name (buffer-name)) result)
          (push (cons 'uri rlog--view-uri) result)
          (push (cons 'mode (symbol-name major-mode)) result)
          (push (cons 'readonly (if buffer-read-only t :json-false)) result)
          (push (cons 'managed (if (eglot-managed-p) t :json-false)) result)
          (push (cons 'text (buffer-substring-no-properties (point-min) (point-max))) result)
          ;; The server's diagnostics, in flymake, waited for before any
          ;; request of ours: Emacs 28's jsonrpc-request throws out of the
          ;; process filter with the answer it waits for, and a message read
          ;; with that answer stays unread until the server sends something
          ;; else. The server publishes the view's diagnostics as soon as
          ;; the editor answers its registerCapability, which Emacs does
          ;; while it waits for an answer: asked after the hover and the
          ;; definition, the diagnostics came with the definition's answer
          ;; and were read only once the view changed (3 runs in 8).
          (push (cons 'diagnostics (vconcat (mapcar #'flymake-diagnostic-text (rlog-test-diagnostics)))) result)
          (goto-char (point-min))
          (forward-line (1- (string-to-number (getenv "RLOG_LINE"))))
          (forward-char (string-to-number (getenv "RLOG_COL")))
          (let ((server (eglot-current-server))
                (at (eglot--TextDocumentPositionParams)))
            (push (cons 'hover (plist-get (plist-get (jsonrpc-request server :textDocument/hover at) :contents) :value)) result)
            (let ((loc (aref (jsonrpc-request server :textDocument/definition at) 0)))
              (push (cons 'definition `((uri . ,(plist-get loc :uri))
                                        (line . ,(plist-get (plist-get (plist-get loc :range) :start) :line))))
                    result)))
          ;; Claude Code writes the rest of the session: the view follows.
          (write-region (with-temp-buffer (insert-file-contents (getenv "RLOG_REST")) (buffer-string))
                        nil file t 'silent)
          (let ((last (getenv "RLOG_LAST")))
            (unless (view-test--wait (lambda () (save-excursion (goto-char (point-min)) (search-forward last nil t))) rlog-test-wait)
              (error "the view did not follow the transcript")))
          (push (cons 'grown (buffer-substring-no-properties (point-min) (point-max))) result)
          (push (cons 'modified (if (buffer-modified-p) t :json-false)) result)
          ;; A file the server does not read: a message that says why, no buffer.
          (condition-case refused (rlog-view (getenv "RLOG_UNREAD"))
            (user-error (push (cons 'refused (error-message-string refused)) result)))
          (push (cons 'buffers (vconcat (mapcar #'buffer-name (buffer-list)))) result)
          (eglot-shutdown (eglot-current-server) nil rlog-test-wait)))
    (error (push (cons 'error (format "%S" err)) result)))
  (with-temp-file (getenv "RLOG_OUT")
    (insert (json-encode result))))
