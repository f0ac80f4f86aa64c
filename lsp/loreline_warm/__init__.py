"""Loreline's warm recall process: the sentence model kept loaded for the prompt hook."""
