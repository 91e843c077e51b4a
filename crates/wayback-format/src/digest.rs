//! The Archive's payload digest: SHA-1 in base32, as WARC `WARC-Payload-Digest`
//! headers (after `sha1:`) and CDX `digest` fields write it.

use sha1::Digest as _;

/// SHA-1 of `data` in base32 (32 characters).
pub fn sha1_base32(data: &[u8]) -> String {
    data_encoding::BASE32.encode(&sha1::Sha1::digest(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_base32_sha1() {
        // SHA-1 of the empty string, da39a3ee..., in base32.
        assert_eq!(sha1_base32(b""), "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
    }
}
