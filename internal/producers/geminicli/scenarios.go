package geminicli

import (
	g "github.com/rlog-ls/rlog-ls/internal/producers/gemini"
)

// Scenarios are the scripted sessions the fixtures are recorded from (see
// docs/producers.md). Each rule matches one request of the session by what
// the CLI sends: the prompt of the turn, the response of a tool (by its
// name), a sub-agent's requests (only they declare complete_task), the
// CLI's router and compression calls.
var Scenarios = []*Scenario{
	{
		Name:     "shell",
		About:    "A thought, a text and a shell command (run_shell_command) that writes and lists a file, then a closing text.",
		Steps:    []Step{{Prompt: "List the files after writing a.txt."}},
		Sessions: 1,
		Rules: rules(
			g.Rule{Name: "shell", When: g.LastUserSays("List the files"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Thought("I should write the file, then list the folder."), g.Text("Writing a.txt and listing the folder."),
					g.Call("run_shell_command", `{"command":"printf 'hello\\n' > a.txt; ls; cat a.txt","description":"Write and list"}`)},
				Usage: g.Usage{Prompt: 3000, Candidates: 40, Thoughts: 12}}},
			g.Rule{Name: "done", When: g.Responds("run_shell_command"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("The folder holds a.txt, which says hello.")},
				Usage: g.Usage{Prompt: 3400, Cached: 2900, Candidates: 15}}},
		),
	},
	{
		Name:     "patch",
		About:    "write_file creates a file, then, after a thought, replace edits it.",
		Steps:    []Step{{Prompt: "Create notes.md, then edit its second line."}},
		Sessions: 1,
		Rules: rules(
			g.Rule{Name: "write", When: g.LastUserSays("Create notes.md"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("write_file", `{"file_path":"notes.md","content":"# Notes\nfirst line\nsecond line\n"}`)},
				Usage: g.Usage{Prompt: 3000, Candidates: 50}}},
			g.Rule{Name: "replace", When: g.Responds("write_file"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Thought("Now change the second line."),
					g.Call("replace", `{"file_path":"notes.md","instruction":"Edit the second line.","old_string":"first line\nsecond line\n","new_string":"first line\nsecond line, edited\n"}`)},
				Usage: g.Usage{Prompt: 3200, Cached: 3000, Candidates: 45, Thoughts: 5}}},
			g.Rule{Name: "done", When: g.Responds("replace"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("notes.md is written and edited.")},
				Usage: g.Usage{Prompt: 3400, Cached: 3200, Candidates: 10}}},
		),
	},
	{
		Name: "fail",
		About: "A shell command that fails (exit code 3, with stderr: the call's status stays success), a tool not offered " +
			"in this mode (exit_plan_mode) and one that does not exist (both \"Tool not found\", status error), and a " +
			"replace in a file that does not exist (status error), then a closing text.",
		Steps:    []Step{{Prompt: "List the missing folder."}},
		Sessions: 1,
		Rules: rules(
			g.Rule{Name: "bad-command", When: g.LastUserSays("List the missing folder"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("run_shell_command", `{"command":"ls /does-not-exist; echo to-stderr >&2; exit 3"}`)},
				Usage: g.Usage{Prompt: 3000, Candidates: 30}}},
			g.Rule{Name: "not-offered", When: g.Responds("run_shell_command"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("exit_plan_mode", `{"plan_path":"plan.md"}`)},
				Usage: g.Usage{Prompt: 3200, Cached: 3000, Candidates: 20}}},
			g.Rule{Name: "unknown-tool", When: g.Responds("exit_plan_mode"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("no_such_tool", `{"x":1}`)},
				Usage: g.Usage{Prompt: 3300, Cached: 3200, Candidates: 20}}},
			g.Rule{Name: "bad-replace", When: g.Responds("no_such_tool"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("replace", `{"file_path":"missing.txt","instruction":"Edit it.","old_string":"old","new_string":"new"}`)},
				Usage: g.Usage{Prompt: 3400, Cached: 3300, Candidates: 20}}},
			g.Rule{Name: "done", When: g.Responds("replace"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("The command failed with exit code 3, two tools were not found, and the edit did not apply.")},
				Usage: g.Usage{Prompt: 3500, Cached: 3400, Candidates: 20}}},
		),
	},
	{
		Name: "not-offered",
		About: "The default approval mode (no --yolo), in which tools that need approval are not offered: calls of " +
			"run_shell_command and write_file come back as \"Tool not found\" (status error).",
		Steps:    []Step{{Prompt: "Run something.", Default: true}},
		Sessions: 1,
		Rules: rules(
			g.Rule{Name: "shell", When: g.LastUserSays("Run something"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("run_shell_command", `{"command":"echo hi"}`)},
				Usage: g.Usage{Prompt: 3000, Candidates: 20}}},
			g.Rule{Name: "write", When: g.Responds("run_shell_command"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("write_file", `{"file_path":"x.txt","content":"x\n"}`)},
				Usage: g.Usage{Prompt: 3100, Cached: 3000, Candidates: 20}}},
			g.Rule{Name: "done", When: g.Responds("write_file"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("Neither tool is available in this approval mode.")},
				Usage: g.Usage{Prompt: 3200, Cached: 3100, Candidates: 10}}},
		),
	},
	{
		Name: "compression",
		About: "A first prompt, then a resumed one whose first answer reports 620,000 prompt tokens (over half the " +
			"model's 1,048,576) and calls a tool: before going on, the CLI compresses the history (a summary call and " +
			"a verification call, role utility_compressor) and replaces the session's messages ($set) with a " +
			"<state_snapshot>. Compression needs the resumed prompt: a history with one prompt has nothing to compress.",
		Steps: []Step{
			{Prompt: "Fill the context."},
			{Prompt: "A second question.", Resume: "latest"},
		},
		Sessions: 1,
		Rules: rules(
			g.Rule{Name: "summary", When: g.All(g.Not(g.Streaming()), g.LastHas("Generate a new <state_snapshot>")), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("<state_snapshot>SUMMARY: the user filled the context; echo big ran and printed big; a second question came.</state_snapshot>")},
				Usage: g.Usage{Prompt: 7000, Candidates: 40}}},
			g.Rule{Name: "verify", When: g.All(g.Not(g.Streaming()), g.LastHas("Critically evaluate the <state_snapshot>")), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("<state_snapshot>SUMMARY (verified): the user filled the context; echo big ran and printed big; a second question came.</state_snapshot>")},
				Usage: g.Usage{Prompt: 7100, Candidates: 42}}},
			g.Rule{Name: "big-turn", When: g.LastUserSays("Fill the context"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("run_shell_command", `{"command":"echo big"}`)},
				Usage: g.Usage{Prompt: 600000, Candidates: 100}}},
			g.Rule{Name: "big-done", When: g.All(g.Responds("run_shell_command"), g.Not(g.LastHas("second"))), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("Done with the big turn.")},
				Usage: g.Usage{Prompt: 610000, Cached: 600000, Candidates: 20}}},
			g.Rule{Name: "second", When: g.LastUserSays("A second question"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("run_shell_command", `{"command":"echo second"}`)},
				Usage: g.Usage{Prompt: 620000, Candidates: 30}}},
			g.Rule{Name: "second-done", When: g.Responds("run_shell_command"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("The second answer, after the compression.")},
				Usage: g.Usage{Prompt: 9000, Candidates: 10}}},
		),
	},
	{
		Name: "subagent",
		About: "invoke_agent starts the generalist sub-agent, which runs a shell command and reports with complete_task; " +
			"its session is its own file (chats/PARENT/CHILD.jsonl, kind subagent), the parent's call names it (agentId).",
		Steps:     []Step{{Prompt: "Use a sub-agent to count the files."}},
		Sessions:  1,
		Subagents: 1,
		Rules: subagentRules(g.Reply{
			Parts: []g.Part{g.Text("Reporting back."), g.Call("complete_task", `{"result":{"response":"CHILD RESULT: the folder has 0 files."}}`)},
			Usage: g.Usage{Prompt: 3100, Cached: 3000, Candidates: 25}}),
	},
	{
		Name: "subagent-incomplete",
		About: "As subagent, but the sub-agent's complete_task is malformed (a string result): it gets an error, then " +
			"one final chance, answers without completing, and the parent's invoke_agent result says " +
			"ERROR_NO_COMPLETE_TASK_CALL (its status still success).",
		Steps:     []Step{{Prompt: "Use a sub-agent to count the files."}},
		Sessions:  1,
		Subagents: 1,
		Rules: subagentRules(g.Reply{
			Parts: []g.Part{g.Text("Reporting back."), g.Call("complete_task", `{"result":"CHILD RESULT as a string, which the schema refuses"}`)},
			Usage: g.Usage{Prompt: 3100, Cached: 3000, Candidates: 25}},
			g.Rule{Name: "child-gives-up", When: g.All(g.Declares("complete_task"), g.Responds("complete_task")), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("I cannot report it.")}, Usage: g.Usage{Prompt: 3200, Cached: 3100, Candidates: 6}}},
			g.Rule{Name: "child-last-chance", When: g.All(g.Declares("complete_task"), g.LastUserSays("one final chance")), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("Still no report.")}, Usage: g.Usage{Prompt: 3300, Cached: 3200, Candidates: 5}}},
		),
	},
	{
		Name: "resume",
		About: "Three runs of one session: a shell command; --resume latest with a replace; --list-sessions (which asks " +
			"the model for a session summary); --resume SESSION_ID with a thought and a text. A resume writes a header " +
			"again; one that starts in a later minute than the file's name also leaves a stub file of the same session.",
		Steps: []Step{
			{Prompt: "First prompt: write one.txt."},
			{Prompt: "Second prompt: edit one.txt.", Resume: "latest"},
			{ListSessions: true},
			{Prompt: "Third prompt: say what you did.", Resume: "id"},
		},
		Sessions: 1,
		Rules: rules(
			g.Rule{Name: "session-summary", When: g.All(g.Not(g.Streaming()), g.LastHas("Summarize the user's primary intent")), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("Write and edit one.txt")}, Usage: g.Usage{Prompt: 500, Candidates: 5}}},
			g.Rule{Name: "first", When: g.LastUserSays("First prompt"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("run_shell_command", `{"command":"echo one > one.txt"}`)},
				Usage: g.Usage{Prompt: 3000, Candidates: 20}}},
			g.Rule{Name: "first-done", When: g.Responds("run_shell_command"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("Turn one done.")}, Usage: g.Usage{Prompt: 3100, Cached: 3000, Candidates: 5}}},
			g.Rule{Name: "second", When: g.LastUserSays("Second prompt"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("replace", `{"file_path":"one.txt","instruction":"Edit it.","old_string":"one\n","new_string":"one, resumed\n"}`)},
				Usage: g.Usage{Prompt: 3300, Cached: 3100, Candidates: 30}}},
			g.Rule{Name: "second-done", When: g.Responds("replace"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("Turn two done.")}, Usage: g.Usage{Prompt: 3400, Cached: 3300, Candidates: 5}}},
			g.Rule{Name: "third", When: g.LastUserSays("Third prompt"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Thought("Just answer."), g.Text("I wrote one.txt, then edited it.")},
				Usage: g.Usage{Prompt: 3500, Cached: 3400, Candidates: 12, Thoughts: 4}}},
		),
	},
	{
		Name: "api-error",
		About: "A prompt that succeeds; a resumed one the API refuses (HTTP 400: the run fails, its prompt is written and " +
			"then dropped from the session's messages by a $set); a third answered after one HTTP 500, which the CLI " +
			"retries (the retry leaves no trace in the session).",
		Steps: []Step{
			{Prompt: "First prompt."},
			{Prompt: "Second prompt.", Resume: "latest", Fails: true},
			{Prompt: "Third prompt.", Resume: "latest"},
		},
		Sessions: 1,
		Rules: rules(
			g.Rule{Name: "first", When: g.LastUserSays("First prompt"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("Fine so far.")}, Usage: g.Usage{Prompt: 3000, Candidates: 5}}},
			g.Rule{Name: "refused", When: g.LastUserSays("Second prompt"), Times: 1, Reply: g.Reply{Status: 400}},
			g.Rule{Name: "server-error", When: g.LastUserSays("Third prompt"), Times: 1, Reply: g.Reply{Status: 500}},
			g.Rule{Name: "third", When: g.LastUserSays("Third prompt"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("Answered after one failed attempt.")}, Usage: g.Usage{Prompt: 3200, Cached: 3000, Candidates: 8}}},
		),
	},
	{
		Name: "legacy",
		About: "The older single-JSON form: Gemini CLI " + LegacyVersion + " (the last version that writes it) runs two prompts " +
			"(session-*.json, one pretty-printed document), then " + Version + " resumes the session: it reads the .json, " +
			"writes the session again as JSONL beside it (same name, .jsonl: a header, the old messages as lines) and " +
			"goes on there, leaving the .json as it was.",
		Steps: []Step{
			{Prompt: "First prompt: write one.txt.", Legacy: true},
			{Prompt: "Second prompt: write two.txt.", Legacy: true, Resume: "latest"},
			{Prompt: "Third prompt: say what you did.", Resume: "latest"},
		},
		Sessions: 1,
		Rules: rules(
			g.Rule{Name: "first", When: g.LastUserSays("First prompt"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Thought("Run it."), g.Call("run_shell_command", `{"command":"echo one > one.txt; exit 2"}`)},
				Usage: g.Usage{Prompt: 3000, Candidates: 20, Thoughts: 3}}},
			g.Rule{Name: "first-done", When: g.Responds("run_shell_command"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("Turn one done.")}, Usage: g.Usage{Prompt: 3100, Cached: 3000, Candidates: 5}}},
			g.Rule{Name: "second", When: g.LastUserSays("Second prompt"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Call("write_file", `{"file_path":"two.txt","content":"two\n"}`)},
				Usage: g.Usage{Prompt: 3300, Cached: 3100, Candidates: 30}}},
			g.Rule{Name: "second-done", When: g.Responds("write_file"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("Turn two done.")}, Usage: g.Usage{Prompt: 3400, Cached: 3300, Candidates: 5}}},
			g.Rule{Name: "third", When: g.LastUserSays("Third prompt"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("I wrote one.txt and two.txt; " + Version + " goes on with a legacy session.")},
				Usage: g.Usage{Prompt: 3500, Cached: 3400, Candidates: 12}}},
		),
	},
	comparePair("compare-a", "wc -l notes.txt", "Counting the lines."),
	// The same task with one scripted answer changed: the second command
	// counts words, not lines (what rlog-ls compare must find).
	comparePair("compare-b", "wc -w notes.txt", "Counting the words."),
}

// comparePair is one of two runs of the same task that differ in one
// scripted answer: the second shell command (and the text before it).
// Each runs in its own folder, as two runs of a task do.
func comparePair(name, count, saying string) *Scenario {
	return &Scenario{
		Name: name,
		About: "One of two runs of the same task with one scripted answer changed (compare-a counts the lines " +
			"of the notes, compare-b the words), for rlog-ls compare: read a file with the shell, count, answer.",
		Files:    map[string][]byte{"notes.txt": []byte("alpha\nbeta\ngamma\n")},
		Steps:    []Step{{Prompt: "How long are the notes in this folder?"}},
		Sessions: 1,
		Rules: rules(
			g.Rule{Name: "read", When: g.LastUserSays("How long are the notes"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("I'll read the notes first."), g.Call("run_shell_command", `{"command":"cat notes.txt","description":"Read the notes"}`)},
				Usage: g.Usage{Prompt: 3000, Candidates: 30}}},
			// The response of cat holds the notes; the count's does not.
			g.Rule{Name: "count", When: g.All(g.Responds("run_shell_command"), g.LastHas("gamma")), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text(saying), g.Call("run_shell_command", `{"command":"`+count+`","description":"Measure the notes"}`)},
				Usage: g.Usage{Prompt: 3200, Cached: 3000, Candidates: 25}}},
			g.Rule{Name: "done", When: g.Responds("run_shell_command"), Times: 1, Reply: g.Reply{
				Parts: []g.Part{g.Text("That is how long the notes are.")},
				Usage: g.Usage{Prompt: 3400, Cached: 3200, Candidates: 10}}},
		),
	}
}

// router answers the CLI's router, which asks before each prompt (a
// sub-agent's too) how complex it is, as JSON: a low score routes it to
// the main model. Any other answer is retried for minutes.
var router = g.Rule{Name: "router", When: g.Router(), Reply: g.Reply{
	Parts: []g.Part{g.JSONText(map[string]any{"complexity_reasoning": "stand-in: a simple task", "complexity_score": 15})},
	Usage: g.Usage{Prompt: 900, Candidates: 20}}}

// rules is a scenario's rules after the router's.
func rules(rs ...g.Rule) []g.Rule { return append([]g.Rule{router}, rs...) }

// subagentRules are the sub-agent scenario's rules, the sub-agent
// answering its shell command's response with complete, then more.
func subagentRules(complete g.Reply, more ...g.Rule) []g.Rule {
	child := g.Declares("complete_task") // only a sub-agent is offered it
	rs := rules(
		g.Rule{Name: "invoke", When: g.All(g.Not(child), g.LastUserSays("Use a sub-agent")), Times: 1, Reply: g.Reply{
			Parts: []g.Part{g.Thought("Delegate the count to a sub-agent."),
				g.Call("invoke_agent", `{"agent_name":"generalist","prompt":"SUBTASK: count the files in the folder and report the number."}`)},
			Usage: g.Usage{Prompt: 4000, Candidates: 60, Thoughts: 10}}},
		g.Rule{Name: "child-shell", When: g.All(child, g.LastUserSays("SUBTASK")), Times: 1, Reply: g.Reply{
			Parts: []g.Part{g.Call("run_shell_command", `{"command":"ls | wc -l"}`)},
			Usage: g.Usage{Prompt: 3000, Candidates: 20}}},
		g.Rule{Name: "child-complete", When: g.All(child, g.Responds("run_shell_command")), Times: 1, Reply: complete},
		g.Rule{Name: "answer", When: g.All(g.Not(child), g.Responds("invoke_agent")), Times: 1, Reply: g.Reply{
			Parts: []g.Part{g.Text("The sub-agent says the folder has 0 files.")},
			Usage: g.Usage{Prompt: 4500, Cached: 4000, Candidates: 14}}},
	)
	return append(rs, more...)
}
