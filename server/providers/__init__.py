"""Model providers: one module per model API, a ModelInput in, a stream of ModelEvents out.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

One module per model API, turning a `ModelInput` into a stream of `ModelEvent`s:
`anthropic.py` (the official SDK, streaming; prompt-cache breakpoints on the stable
prefix; a request's reasoning as `thinking` (adaptive, or enabled with its budget and the
interleaved-thinking beta header) and `output_config.effort`; thinking blocks sent back
as they came; images as base64 image blocks; thinking tokens from the last usage)

`openai_compat.py` (OpenAI-compatible chat completions: OpenAI, Ollama, llama.cpp, LM
Studio, vLLM; `reasoning_effort`, `max_completion_tokens` for OpenAI's reasoning models,
streamed `reasoning_content` kept as thinking, images as `image_url` data URLs)

`scripted.py` (a JSON script of turns, shipped for demos and tests; a turn may `choose`
by what the last tool result said, `next` goes on at a named turn, `laterAsks` names
where a later ask in the session starts)

`errors.py` (the providers' error wording: one line, bounded, with the cause)

`factory.py` (`PROVIDER:NAME` → provider, credentials checked first)

`warm.py` (what an SDK's first request imports, loaded by `warm_up` where sessions open:
on a thread in the language server).

`base.py`: the `ModelProvider` Protocol and `ProviderBase` (the optional capabilities,
done as nothing: `warm_up`, `learn_window`, `server_window`, `image_limits`: none taken).

`window_probe.py`: asks an OpenAI-compatible server that is not OpenAI's own how much
context its model has (llama.cpp `/props`, Ollama `/api/ps` and `/api/show`, vLLM and
LM Studio model lists); short bounded requests; None when it says nothing.

`windows.py`: `learn_window`, the answer (or the silence) remembered for a day per
digest of the base URL and model in the state folder's `context-windows.json`, read by
its owner alone; called where sessions open, never on an event loop.
"""
