"""pixnet: a simulated PIX network that several institutions share.

A DICT that speaks the central bank's DICT API (``pixnet.directory``) and, in time, an SPI that
settles between the institutions' settlement accounts. The service (``pixweb``) talks to it as a
participant when ``PIX_NETWORK_URL`` is set; without it the service's built-in sandbox stands for
the rest of the network, as before.

What is here so far: the directory's rules for entries (``pixnet.directory.entries``), framework
free like ``pixcore``, on which the XML face, the signatures and the ``pixnet serve`` process are
to be built.
"""
