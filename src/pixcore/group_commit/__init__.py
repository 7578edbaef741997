"""Group commit: the concurrent requests on one hot row gathered and written together.

The application layer's machinery, apart from the money rules it applies: the gatherer, and one
group-committer each for transfers, receipts, charge payments and settlement rounds."""
