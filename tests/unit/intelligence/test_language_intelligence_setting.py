"""languageIntelligence from a source not yet trusted: every choice applies, the servers
themselves (languageServers) do not."""

from __future__ import annotations

import pytest

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import Settings, load_settings
from agentls.conversation.settings_layers import untrusted_part


@pytest.mark.parametrize("choice", ["auto", "editor", "agentls"])
def test_an_untrusted_layer_may_choose_who_answers(choice: str) -> None:
    data = {"languageIntelligence": choice, "languageServers": {"evil": {"command": "x"}}}
    kept, dropped = untrusted_part(data, Settings())
    assert kept == {"languageIntelligence": choice}
    assert dropped == ["languageServers"]
    assert load_settings(kept).wire.language_intelligence == choice


def test_an_unknown_choice_is_refused() -> None:
    with pytest.raises(ConfigError):
        load_settings({"languageIntelligence": "both"})
