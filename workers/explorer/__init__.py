"""The network explorer and the task report: one read model of the chain's history (`history`),
a learning curve from the content store (`curve`), a read-only web page with a JSON API
(`server`) and PNG plots with a Markdown page (`report`)."""
