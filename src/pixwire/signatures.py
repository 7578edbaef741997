"""The DICT's XML Digital Signatures: enveloped, a child of the document's root.

Writes to the DICT are signed by the participant that sends them and every answer by the DICT;
each side verifies the other's against the certificate it knows for it (never only against the
one a signature carries). What a verification returns is the signed element, and only it is to
be read ("see what is signed").

Algorithms (the central bank's manual of security, which names them, is not reachable from here;
these are the XML-DSig 1.1 recommendations): RSA with SHA-256, SHA-256 digests, exclusive
canonicalization, the signer's certificate in ``KeyInfo``.
"""

from __future__ import annotations

from functools import lru_cache

from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from lxml import etree
from signxml.algorithms import CanonicalizationMethod, DigestAlgorithm, SignatureMethod
from signxml.exceptions import InvalidInput, InvalidSignature
from signxml.signer import XMLSigner
from signxml.verifier import SignatureConfiguration, XMLVerifier

from pixwire.xml import Element, parse

__all__ = ["SignatureRefused", "sign", "verify"]

DS = "http://www.w3.org/2000/09/xmldsig#"
C14N = CanonicalizationMethod.EXCLUSIVE_XML_CANONICALIZATION_1_0
_EXPECTED = SignatureConfiguration(
    location="./",  # the signature is a child of the root, and the root is what it signs
    signature_methods=frozenset({SignatureMethod.RSA_SHA256}),
    digest_algorithms=frozenset({DigestAlgorithm.SHA256}),
)


class SignatureRefused(ValueError):
    """A document whose signature is missing, broken, or not its sender's."""


@lru_cache(maxsize=16)
def _private_key(key_pem: bytes) -> RSAPrivateKey:
    """The key of ``key_pem``, loaded once: loading checks an RSA key's consistency, about 50 ms,
    which every signature would otherwise pay (a process signs with one or two keys)."""
    key = load_pem_private_key(key_pem, password=None)
    if not isinstance(key, RSAPrivateKey):
        raise TypeError("the DICT's signatures are RSA with SHA-256: an RSA key is needed")
    return key


def sign(root: Element, *, key_pem: bytes, cert_pem: bytes) -> Element:
    """``root`` with its enveloped signature as its first child (RSA keys only: ``TypeError``)."""
    key = _private_key(key_pem)
    placeholder = etree.Element(f"{{{DS}}}Signature", Id="placeholder", nsmap={"ds": DS})
    root.insert(0, placeholder)
    signer = XMLSigner(c14n_algorithm=C14N)
    signed: Element = signer.sign(root, key=key, cert=cert_pem.decode())
    return signed


def verify(body: bytes, *, cert_pem: bytes) -> Element:
    """The signed root of ``body``, signed with the key of ``cert_pem``; :class:`SignatureRefused`
    otherwise. The body is parsed with :func:`pixwire.xml.parse`'s defences first."""
    root = parse(body)
    if root.find(f"{{{DS}}}Signature") is None:
        raise SignatureRefused("the document is not signed")
    try:
        result = XMLVerifier().verify(root, x509_cert=cert_pem.decode(), expect_config=_EXPECTED)
    except (InvalidSignature, InvalidInput) as exc:
        raise SignatureRefused(f"the signature does not verify: {exc}") from exc
    if isinstance(result, list):  # signxml answers a list only when asked for several signatures
        raise SignatureRefused("one signature was expected")
    signed: Element = result.signed_xml
    return signed
