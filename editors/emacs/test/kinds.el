;;; kinds.el --- dump what rlog-mode makes of each line  -*- lexical-binding: t -*-
;; emacs --batch -L editors/emacs -l editors/emacs/test/kinds.el FILES...
;; Writes JSON to $RLOG_OUT: for each file, its major mode and each line's
;; kind (the rlog-kind text property font-lock put there), the face at each
;; token listed in $RLOG_PROBES, and the faces of a few tokens of
;; testdata/sample.rlog.
(require 'json)
(require 'rlog-mode)

(defun rlog-test--face-at (re &optional group)
  "The face at the first match of RE (of GROUP) in the buffer."
  (save-excursion
    (goto-char (point-min))
    (when (re-search-forward re nil t)
      (let ((f (get-text-property (match-beginning (or group 0)) 'face)))
        (if (listp f) (car f) f)))))

(let ((files (make-hash-table :test 'equal))
      (modes (make-hash-table :test 'equal))
      (faces (make-hash-table :test 'equal))
      (tokens (make-hash-table :test 'equal))
      (probes (and (getenv "RLOG_PROBES")
                   (let ((json-object-type 'hash-table) (json-array-type 'list) (json-key-type 'string))
                     (json-read-file (getenv "RLOG_PROBES"))))))
  (dolist (path command-line-args-left)
    (with-current-buffer (find-file-noselect path t)
      (puthash path (symbol-name major-mode) modes)
      (font-lock-ensure)
      (let ((kinds '()))
        (goto-char (point-min))
        (while (not (eobp))
          (push (let ((k (get-text-property (point) 'rlog-kind))) (if k (symbol-name k) "(none)")) kinds)
          (forward-line 1))
        ;; A last line with no newline after it was counted above; an empty
        ;; one after a final newline is not a line to editors.
        (puthash path (vconcat (nreverse kinds)) files))
      ;; The face at the start of each probed token.
      (let ((got '()))
        (dolist (p (and probes (gethash path probes)))
          (goto-char (point-min))
          (forward-line (1- (gethash "line" p)))
          (forward-char (gethash "char" p))
          (let ((f (get-text-property (point) 'face)))
            (push (symbol-name (or (if (listp f) (car f) f) 'none)) got)))
        (puthash path (vconcat (nreverse got)) tokens))
      (when (string-suffix-p "testdata/sample.rlog" path)
        (dolist (probe '(("prefix" "^t!:") ("tool" "^t!:\\(Read\\)" 1) ("key" " \\(id\\)=v678" 1)
                         ("id" "id=\\(v678oiff\\)" 1) ("timestamp" "ts=\\(2025\\)" 1)
                         ("status_ok" "\\[ok\\]") ("status_running" "\\[running\\]")
                         ("subagent" "^x:\\(Explore\\)" 1) ("phase" "@phase \\(explore\\)" 1)
                         ("event" "^@start") ("header_key" "^\\(repo_sha\\):" 1) ("delimiter" "^---")
                         ("string" "file_path=\\(src\\)" 1) ("number" "tokens_in=\\(310\\)" 1)))
          (puthash (car probe) (symbol-name (or (rlog-test--face-at (nth 1 probe) (nth 2 probe)) 'none)) faces)))))
  (with-temp-file (getenv "RLOG_OUT")
    (insert (json-encode `((files . ,files) (modes . ,modes) (faces . ,faces) (tokens . ,tokens))))))
