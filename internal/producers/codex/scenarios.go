package codex

import (
	o "github.com/rlog-ls/rlog-ls/internal/producers/openai"
)

// Scenarios are the scripted sessions the fixtures are recorded from (see
// docs/producers.md). Each rule matches one request of the session by what
// the CLI sends: the prompt of the turn, the output of a call (by the
// call's id), the agent asking (a sub-agent's requests name it), a
// compaction.
var Scenarios = []*Scenario{
	{
		Name:    "shell",
		About:   "A reasoning summary, a message and a shell command (exec_command) that writes and lists a file, then a closing message.",
		Steps:   []Step{{Prompt: "List the files after writing a.txt."}},
		Threads: 1,
		Ends:    "done",
		Rules: []o.Rule{
			{Name: "exec", When: o.LastUserSays("List the files"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Reasoning("I should write the file, then list the folder."), o.Message("Writing a.txt and listing the folder."),
					o.FunctionCall("call_shell_exec", "exec_command", `{"cmd":"printf 'hello\\n' > a.txt; ls; cat a.txt","yield_time_ms":2000}`)},
				Usage: o.Usage{Input: 3000, Output: 40, Reasoning: 12}}},
			{Name: "done", When: o.Output("call_shell_exec"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("The folder holds a.txt, which says hello.")},
				Usage: o.Usage{Input: 3400, Cached: 2900, Output: 15}}},
		},
	},
	{
		Name:    "patch",
		About:   "apply_patch (a custom tool taking free text) adds a file, then, after a reasoning summary, updates it.",
		Steps:   []Step{{Prompt: "Create notes.md, then edit its second line."}},
		Threads: 1,
		Ends:    "done",
		Rules: []o.Rule{
			{Name: "add", When: o.LastUserSays("Create notes.md"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.CustomToolCall("call_patch_add", "apply_patch", "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n+first line\n+second line\n*** End Patch\n")},
				Usage: o.Usage{Input: 3000, Output: 50}}},
			{Name: "update", When: o.Output("call_patch_add"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Reasoning("Now change the second line."),
					o.CustomToolCall("call_patch_update", "apply_patch", "*** Begin Patch\n*** Update File: notes.md\n@@\n # Notes\n first line\n-second line\n+second line, edited\n*** End Patch\n")},
				Usage: o.Usage{Input: 3200, Cached: 3000, Output: 45, Reasoning: 5}}},
			{Name: "done", When: o.Output("call_patch_update"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("notes.md is written and edited.")},
				Usage: o.Usage{Input: 3400, Cached: 3200, Output: 10}}},
		},
	},
	{
		Name: "fail",
		About: "A shell command that fails (exit code 3, with stderr), a call to a tool that does not exist, " +
			"and a patch of a file that does not exist, then a closing message.",
		Steps:   []Step{{Prompt: "List the missing folder."}},
		Threads: 1,
		Ends:    "done",
		Rules: []o.Rule{
			{Name: "bad-command", When: o.LastUserSays("List the missing folder"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.FunctionCall("call_fail_exec", "exec_command", `{"cmd":"ls /does-not-exist; echo to-stderr >&2; exit 3"}`)},
				Usage: o.Usage{Input: 3000, Output: 30}}},
			{Name: "unknown-tool", When: o.Output("call_fail_exec"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.FunctionCall("call_fail_unknown", "no_such_tool", `{"x":1}`)},
				Usage: o.Usage{Input: 3200, Cached: 3000, Output: 20}}},
			{Name: "bad-patch", When: o.Output("call_fail_unknown"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.CustomToolCall("call_fail_patch", "apply_patch", "*** Begin Patch\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch\n")},
				Usage: o.Usage{Input: 3300, Cached: 3200, Output: 20}}},
			{Name: "done", When: o.Output("call_fail_patch"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("The command failed with exit code 3, the tool does not exist, and the patch did not apply.")},
				Usage: o.Usage{Input: 3500, Cached: 3300, Output: 20}}},
		},
	},
	{
		Name: "compaction",
		About: "With model_auto_compact_token_limit=50000, an answer reporting 60,000 input tokens and calling a tool: " +
			"the CLI compacts in the middle of the turn (a compaction request, its summary, a compacted line) and goes on; " +
			"a resumed second prompt, after an answer reporting 52,000, compacts before its turn.",
		Steps: []Step{
			{Prompt: "Fill the context.", Args: []string{"-c", "model_auto_compact_token_limit=50000"}},
			{Prompt: "A second question.", Args: []string{"-c", "model_auto_compact_token_limit=50000"}, Resume: true},
		},
		Threads: 1,
		Ends:    "second-answer",
		Rules: []o.Rule{
			// Compactions first: their requests also end with the turn
			// they interrupt.
			{Name: "summary-1", When: o.Compaction(), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("SUMMARY 1: the user asked to fill the context; `echo big` ran and printed big. Next: answer.")},
				Usage: o.Usage{Input: 60500, Cached: 60000, Output: 30}}},
			{Name: "summary-2", When: o.Compaction(), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("SUMMARY 2: the big turn is done; the user now asks a second question.")},
				Usage: o.Usage{Input: 52500, Cached: 52000, Output: 25}}},
			{Name: "big-turn", When: o.LastUserSays("Fill the context"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.FunctionCall("call_compact_exec", "exec_command", `{"cmd":"echo big"}`)},
				Usage: o.Usage{Input: 60000, Output: 100}}},
			{Name: "after-summary-1", When: o.LastHas("SUMMARY 1"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("Done with the big turn.")},
				Usage: o.Usage{Input: 52000, Output: 20}}},
			{Name: "second-answer", When: o.LastUserSays("A second question"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("The second answer, after the compaction.")},
				Usage: o.Usage{Input: 5000, Output: 10}}},
		},
	},
	subagentScenario("subagent", `"fork_turns":"none"`,
		"The main agent (--enable multi_agent_v2) spawns a sub-agent with a fresh context (spawn_agent, fork_turns none), "+
			"waits for it (wait_agent), and answers with its result. The sub-agent runs a shell command in its own "+
			"rollout, which names the parent thread, and reports back as an agent message."),
	subagentScenario("subagent-fork", "",
		"As subagent, but the sub-agent forks the main agent's context (spawn_agent without fork_turns): its rollout "+
			"starts with two session_meta lines and replays the parent's items up to the spawn before its own turn."),
	{
		Name: "resume",
		About: "Three runs of one thread: a shell command; `codex exec resume THREAD` with a patch; " +
			"`codex exec resume --last` with a reasoning summary and a message. Each run appends to the same rollout.",
		Steps: []Step{
			{Prompt: "First prompt: write one.txt."},
			{Prompt: "Second prompt: edit one.txt.", Resume: true},
			{Prompt: "Third prompt: say what you did.", Args: []string{"resume", "--last"}},
		},
		Threads: 1,
		Ends:    "third",
		Rules: []o.Rule{
			{Name: "first", When: o.LastUserSays("First prompt"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.FunctionCall("call_resume_exec", "exec_command", `{"cmd":"echo one > one.txt"}`)},
				Usage: o.Usage{Input: 3000, Output: 20}}},
			{Name: "first-done", When: o.Output("call_resume_exec"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("Turn one done.")},
				Usage: o.Usage{Input: 3100, Cached: 3000, Output: 5}}},
			{Name: "second", When: o.LastUserSays("Second prompt"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.CustomToolCall("call_resume_patch", "apply_patch", "*** Begin Patch\n*** Update File: one.txt\n@@\n-one\n+one, resumed\n*** End Patch\n")},
				Usage: o.Usage{Input: 3300, Cached: 3100, Output: 30}}},
			{Name: "second-done", When: o.Output("call_resume_patch"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("Turn two done.")},
				Usage: o.Usage{Input: 3400, Cached: 3300, Output: 5}}},
			{Name: "third", When: o.LastUserSays("Third prompt"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Reasoning("Just answer."), o.Message("I wrote one.txt, then edited it.")},
				Usage: o.Usage{Input: 3500, Cached: 3400, Output: 12, Reasoning: 4}}},
		},
	},
	{
		Name: "api-error",
		About: "A turn that succeeds, then three resumed prompts the API fails: HTTP 500, a stream that breaks " +
			"(response.failed) after a partial message, and HTTP 400 context_length_exceeded. The rollout records " +
			"no error line: each failed turn ends with task_complete and no last message.",
		Steps: []Step{
			{Prompt: "First prompt."},
			{Prompt: "Second prompt.", Resume: true, Fails: true},
			{Prompt: "Third prompt.", Resume: true, Fails: true},
			{Prompt: "Fourth prompt.", Resume: true, Fails: true},
		},
		Threads: 1,
		Rules: []o.Rule{
			{Name: "first", When: o.LastUserSays("First prompt"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("Fine so far.")}, Usage: o.Usage{Input: 3000, Output: 5}}},
			{Name: "server-error", When: o.LastUserSays("Second prompt"), Times: 1, Reply: o.Reply{Status: 500, ErrorCode: "server_error"}},
			{Name: "broken-stream", When: o.LastUserSays("Third prompt"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("A partial answer")}, FailStream: "the stand-in broke the stream"}},
			{Name: "context-too-long", When: o.LastUserSays("Fourth prompt"), Times: 1, Reply: o.Reply{Status: 400, ErrorCode: "context_length_exceeded"}},
		},
	},
	comparePair("compare-a", "wc -l"),
	// The same task with one scripted answer changed: the command counts
	// words, not lines (what rlog-ls compare must find).
	comparePair("compare-b", "wc -w"),
}

// subagentScenario is the sub-agent scenario, the sub-agent spawned with
// more spawn_agent arguments (a fresh context, or none: a fork).
func subagentScenario(name, spawnArgs, about string) *Scenario {
	if spawnArgs != "" {
		spawnArgs = "," + spawnArgs
	}
	return &Scenario{
		Name:    name,
		About:   about,
		Steps:   []Step{{Prompt: "Use a sub-agent to count the files.", Args: []string{"--enable", "multi_agent_v2"}}},
		Threads: 2,
		Ends:    "answer",
		Rules: []o.Rule{
			{Name: "spawn", When: o.All(o.Agent("/root"), o.LastUserSays("Use a sub-agent")), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Reasoning("Delegate the count to a sub-agent."),
					o.CollaborationCall("call_sub_spawn", "spawn_agent", `{"task_name":"counter","message":"SUBTASK: count the files in the folder"`+spawnArgs+`}`)},
				Usage: o.Usage{Input: 4000, Output: 60, Reasoning: 10}}},
			{Name: "wait", When: o.Output("call_sub_spawn"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.CollaborationCall("call_sub_wait", "wait_agent", `{"timeout_ms":20000}`)},
				Usage: o.Usage{Input: 4200, Cached: 4000, Output: 15}}},
			{Name: "child-exec", When: o.All(o.Agent("/root/counter"), o.LastHas("SUBTASK")), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.FunctionCall("call_sub_exec", "exec_command", `{"cmd":"ls | wc -l"}`)},
				Usage: o.Usage{Input: 3000, Output: 20}}},
			{Name: "child-done", When: o.Output("call_sub_exec"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("CHILD RESULT: the folder has 0 files.")},
				Usage: o.Usage{Input: 3100, Cached: 3000, Output: 12}}},
			// The sub-agent's answer reaches the parent as an agent message,
			// after the wait's output or with it.
			{Name: "answer", When: o.All(o.Agent("/root"), o.OneOf(o.LastHas("FINAL_ANSWER"), o.Output("call_sub_wait"))), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("The sub-agent says the folder has 0 files.")},
				Usage: o.Usage{Input: 4500, Cached: 4200, Output: 14}}},
		},
	}
}

// comparePair is one of two runs of the same task that differ in one
// scripted answer: the command the shell runs. Each runs in its own
// folder, as two runs of a task do.
func comparePair(name, count string) *Scenario {
	return &Scenario{
		Name: name,
		About: "One of two runs of the same task with one scripted answer changed (compare-a counts the lines " +
			"of a file it writes, compare-b the words), for rlog-ls compare: a shell command, then a closing message.",
		Steps:   []Step{{Prompt: "How long is a list of three names?"}},
		Threads: 1,
		Ends:    "done",
		Rules: []o.Rule{
			{Name: "exec", When: o.LastUserSays("How long is a list"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("Writing the list and measuring it."),
					o.FunctionCall("call_cmp_exec", "exec_command", `{"cmd":"printf 'alpha\\nbeta\\ngamma\\n' > names.txt; `+count+` names.txt"}`)},
				Usage: o.Usage{Input: 3000, Output: 30}}},
			{Name: "done", When: o.Output("call_cmp_exec"), Times: 1, Reply: o.Reply{
				Items: []o.Item{o.Message("That is how long the list is.")},
				Usage: o.Usage{Input: 3300, Cached: 2900, Output: 10}}},
		},
	}
}
