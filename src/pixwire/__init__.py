"""pixwire: the PIX network's wire, which the network and its participants both speak.

The documents the simulated network (``pixnet``) and a participant exchange, and nothing of either
side's rules: the DICT's vocabulary and XML documents (``pixwire.dict``), XML read with every door
shut (``pixwire.xml``) and XML Digital Signatures (``pixwire.signatures``). The service, a
participant, never imports the network; both import this.
"""
