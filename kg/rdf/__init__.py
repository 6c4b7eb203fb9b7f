"""The one text form every stage shares: vocabulary, terms, IRIs."""
