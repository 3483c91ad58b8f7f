# Source from the repo root after `make setup` to use the tools by hand:
#   . tools/env.sh && brownie test && forge test
# (brownie needs `anvil` on PATH; forge must run from the repo root: foundry.toml's solc path is relative)
_decentrl_root=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)
export PATH="$_decentrl_root/tools/bin:$_decentrl_root/.venv/bin:$PATH"
unset _decentrl_root
