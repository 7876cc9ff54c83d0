package org.meshjava.core.identity;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * A {@code did:key} built from its parts, so that inputs reach past the base58 text into the
 * multicodec, the key length, the curve point and the canonical-encoding check: a prefix (usually
 * {@code did:key:z}), then base58btc of a multicodec (usually Ed25519's {@code 0xed01}), of key
 * bytes (usually 32), and of leading zero bytes, which base58btc writes as {@code 1}s. Only a
 * {@link DidKeyException} may refuse it; accepted text is its key's one encoding. In this package
 * because the base58btc encoder is the parser's own.
 */
class DidKeyFuzzTest {
  @FuzzTest(maxDuration = "60s")
  void parts(FuzzedDataProvider data) {
    String prefix = data.consumeBoolean() ? "did:key:z" : data.consumeString(12);
    byte[] zeros = new byte[data.consumeInt(0, 3) > 2 ? data.consumeInt(1, 3) : 0];
    byte[] codec = data.consumeBoolean() ? new byte[] {(byte) 0xed, 0x01} : data.consumeBytes(2);
    byte[] key = data.consumeBytes(data.consumeBoolean() ? 32 : data.consumeInt(0, 40));
    byte[] raw = new byte[zeros.length + codec.length + key.length];
    System.arraycopy(codec, 0, raw, zeros.length, codec.length);
    System.arraycopy(key, 0, raw, zeros.length + codec.length, key.length);
    String text = prefix + Base58Btc.encode(raw) + data.consumeRemainingAsString();
    DidKey parsed;
    try {
      parsed = DidKey.parse(text);
    } catch (DidKeyException refused) {
      return;
    } catch (RuntimeException | Error e) {
      throw new AssertionError("undocumented failure: " + e, e);
    }
    if (!parsed.value().equals(text) || !DidKey.of(parsed.verificationKey()).equals(parsed)) {
      throw new AssertionError("accepted did:key is not its key's one encoding: " + text);
    }
  }
}
