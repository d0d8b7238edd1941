"""Two small vaults, English and Portuguese, written in July 2024: journal days whose text has
headings, tasks, bare links and lead-ins ending in ':' (what a summary must never end on), and
notes dated by their own frontmatter, one of them in another month; and a small team's vault of
September 2026 for sleep with a model."""

from pathlib import Path

ENGLISH = {
    "Daily/2024-07-02.md": (
        "# Tuesday notes and plans for the garden\n\n"
        "Finished the draft of the garden plan with Alice Chen on Monday.\n"
        "The soil test came back and the beds need 20 kilos of compost before we\n"
        "plant anything else.\n\n"
        "## Ideas for the garden this summer\n\n"
        "- [ ] Call the plumber about the leak in the shed\n"
        "- [[Garden plan]]\n"
        "- https://example.org/rain-barrels\n\n"
        "Plan for closing out those open ideas:\n"
        "- Ask Bob to lend the drill next week\n"
    ),
    "Daily/2024-07-16.md": (
        "## What we decided about the summer trip\n\n"
        "We booked the train to Porto for the second week of August.\n"
        "**Things still to sort out before leaving:**\n"
        "- [x] Renew the passports at the town hall\n"
    ),
    "Notes/Garden plan.md": (
        "---\ncreated: 2024-07-03\n---\n# Garden plan\n\n"
        "The garden gets three raised beds along the south wall this year.\n"
        "Steps to build them:\n- buy the timber\n"
    ),
    "Notes/Rain barrel.md": (
        "---\ndate: 2024-07-20\ntags: [garden]\n---\n"
        "A rain barrel under the shed gutter would water the tomatoes all summer.\n"
    ),
    "Notes/Old recipe.md": "---\ncreated: 2023-11-05\n---\nMy grandmother's soup needs two hours on a low fire.\n",
}

PORTUGUESE = {
    "Diário/2024-07-02.md": (
        "# Notas de terça-feira sobre a horta e os planos\n\n"
        "Terminei o rascunho do plano da horta com a Inês Carvalho na segunda-feira.\n\n"
        "## Ideias para a horta neste verão\n\n"
        "- [ ] Ligar ao canalizador sobre a fuga no barracão\n"
        "- [[Plano da horta]]\n\n"
        "Plano para fechar essas ideias abertas:\n"
        "- Pedir ao Tomás o berbequim emprestado na próxima semana\n"
    ),
    "Diário/2024-07-18.md": (
        "Marcámos o comboio para o Porto na segunda semana de agosto.\n"
        "Coisas que ainda faltam resolver antes de partir:\n"
        "- [x] Renovar os passaportes na junta de freguesia\n"
    ),
    "Notas/Plano da horta.md": (
        "---\ncreated: 2024-07-04\n---\n# Plano da horta\n\n"
        "A horta vai ter três canteiros elevados junto ao muro sul este ano.\n"
    ),
    "Notas/Receita antiga.md": "---\ncreated: 2023-11-05\n---\nA sopa da minha avó leva duas horas em lume brando.\n",
}

# what each vault's July 2024 page must list, in order of day: note -> its line on the page
ENGLISH_JULY = {
    "2024-07-02": "[[2024-07-02]] (2024-07-02): Finished the draft of the garden plan with Alice Chen on Monday.",
    "Garden plan": "[[Garden plan]] (2024-07-03): The garden gets three raised beds along the south wall this year.",
    "2024-07-16": "[[2024-07-16]] (2024-07-16): We booked the train to Porto for the second week of August.",
    "Rain barrel": "[[Rain barrel]] (2024-07-20): A rain barrel under the shed gutter would water the tomatoes all summer.",
}
PORTUGUESE_JULY = {
    "2024-07-02": "[[2024-07-02]] (2024-07-02): Terminei o rascunho do plano da horta com a Inês Carvalho na segunda-feira.",
    "Plano da horta": "[[Plano da horta]] (2024-07-04): A horta vai ter três canteiros elevados junto ao muro sul este ano.",
    "2024-07-18": "[[2024-07-18]] (2024-07-18): Marcámos o comboio para o Porto na segunda semana de agosto.",
}
# headings and lead-ins of the fixtures: never a summary's sentence
FRAGMENTS = (
    "Tuesday notes and plans for the garden", "Ideas for the garden this summer", "Plan for closing out",
    "What we decided about the summer trip", "Things still to sort out", "Steps to build them",
    "Notas de terça-feira", "Ideias para a horta neste verão", "Plano para fechar", "Coisas que ainda faltam",
    "Call the plumber", "Ligar ao canalizador", "example.org",
)

TEAM = {  # a small team in September 2026: two people, two projects, two days
    "Daily/2026-09-02.md": "Met [[Alice Chen]] at Acme Robotics to plan the Heron demo.\n",
    "Daily/2026-09-09.md": "[[Alice Chen]] and [[Bob Martins]] finished the Heron firmware.\n",
    "People/Alice Chen.md": "Alice Chen leads [[Project Heron]] and [[Project Kestrel]] at Acme Robotics.\n",
    "People/Bob Martins.md": "Bob Martins writes firmware for [[Project Heron]].\n",
    "Projects/Project Heron.md": "Project Heron is a warehouse robot. [[Alice Chen]] leads it.\n",
    "Projects/Project Kestrel.md": "Project Kestrel is a delivery drone. [[Alice Chen]] leads it.\n",
}
TEAM_LATE_DAY = ("Daily/2026-09-16.md", "Bob Martins flew to Lisbon for the Heron review.\n")


def write_vault(vault: Path, notes: dict[str, str]) -> None:
    for name, text in notes.items():
        (vault / name).parent.mkdir(parents=True, exist_ok=True)
        (vault / name).write_text(text, encoding="utf-8")
