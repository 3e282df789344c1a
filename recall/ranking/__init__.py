"""Recall: ranking memories by what is being touched, then by text, with a receipt for each."""
