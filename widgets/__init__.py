"""Qt widgets of tokinspect: they display models from `tokinspect`, they compute nothing."""
