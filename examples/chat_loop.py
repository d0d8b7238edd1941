"""A chat loop with memory: before_turn adds context to the system prompt, after_turn
remembers each exchange. Works with any OpenAI-compatible endpoint.

    OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=unused \\
        python examples/chat_loop.py --namespace example --model llama3.2

Type a message and press Enter; an empty line or Ctrl-D ends the chat.
"""

import argparse
import os
import sys
from typing import Any, TextIO

from openai import OpenAI

from mnemo.client import MemoryClient
from mnemo.serve.hooks import after_turn, before_turn

SYSTEM = "You are a helpful assistant with a long-term memory of the user's notes and chats."


def chat_turn(llm: OpenAI, model: str, memory: MemoryClient, messages: list[dict[str, Any]]) -> str:
    """One turn: context from memory, the model's answer, the exchange remembered."""
    context = before_turn(memory.namespace, messages, client=memory)
    system = SYSTEM + ("\n\nWhat you remember:\n" + context if context else "")
    conversation: list[Any] = [{"role": "system", "content": system}, *messages]  # OpenAI's message dicts
    response = llm.chat.completions.create(model=model, messages=conversation)
    answer = response.choices[0].message.content or ""
    messages.append({"role": "assistant", "content": answer})
    after_turn(memory.namespace, messages, client=memory)
    return answer


def chat(llm: OpenAI, model: str, namespace: str, lines: TextIO, out: TextIO, config: str | None = None) -> int:
    """Read user messages line by line until an empty one; return how many turns ran."""
    memory = MemoryClient(namespace, config)  # held for the chat: recall's reads are kept between turns
    messages: list[dict[str, Any]] = []
    turns = 0
    for line in lines:
        if not line.strip():
            break
        messages.append({"role": "user", "content": line.strip()})
        out.write(f"assistant: {chat_turn(llm, model, memory, messages)}\n")
        out.flush()
        turns += 1
    return turns


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--namespace", default="example")
    parser.add_argument("--model", default=os.environ.get("MNEMO_CHAT_MODEL", "gpt-4o-mini"))
    parser.add_argument("--config", default=None, help="mnemo.yaml (default: $MNEMO_CONFIG or ./mnemo.yaml)")
    args = parser.parse_args(argv)
    llm = OpenAI(base_url=os.environ.get("OPENAI_BASE_URL"), api_key=os.environ.get("OPENAI_API_KEY", "unused"))
    chat(llm, args.model, args.namespace, sys.stdin, sys.stdout, args.config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
