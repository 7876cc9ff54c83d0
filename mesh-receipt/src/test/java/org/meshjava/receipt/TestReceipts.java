package org.meshjava.receipt;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.Fidelity;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.receipt.internal.CoseSign1;

/**
 * Fixed keys, ready-made receipt drafts, and a signer that seals any CBOR map as a JCR-1 envelope,
 * so tests can hand {@link Jcr1#open} payloads the sealing code would never write. Test support
 * only.
 */
final class TestReceipts {
  /** The steward key most tests seal with. */
  static final SigningKey KEY = keyFromByte(1);

  /** A second steward. */
  static final SigningKey OTHER_KEY = keyFromByte(2);

  private TestReceipts() {}

  static SigningKey keyFromByte(int b) {
    byte[] seed = new byte[32];
    for (int i = 0; i < seed.length; i++) {
      seed[i] = (byte) (b * 31 + i);
    }
    return SigningKey.fromSeed(seed);
  }

  static DidKey did(SigningKey key) {
    return DidKey.of(key.verificationKey());
  }

  static ContentId id(String text) {
    return ContentId.ofBytes(text.getBytes(StandardCharsets.UTF_8));
  }

  static Nonce nonce(int b) {
    byte[] n = new byte[Nonce.LENGTH];
    java.util.Arrays.fill(n, (byte) b);
    return Nonce.of(n);
  }

  /**
   * A generation draft with every optional part absent: Estimator energy 12 345 µJ, 7 tokens
   * accepted of 8 out. The chain fields and steward are left for a log (or {@link #genesis}).
   */
  static MeshReceipt.Builder generationDraft() {
    return MeshReceipt.builder()
        .requestId(id("request"))
        .backend("tiny")
        .recipe("tiny-base+lora")
        .route("cheapest admissible of 1: tiny")
        .counters(new OutcomeCounters(5, 8, 7, 1, 4, 3))
        .fidelityFloor(Fidelity.F1)
        .fidelityMet(true)
        .energy(Energy.estimated(12_345))
        .nonce(nonce(7));
  }

  /** {@code draft} as the genesis receipt of {@link #KEY}'s chain. */
  static MeshReceipt genesis(MeshReceipt.Builder draft) {
    return draft.chain(0, Optional.empty()).steward(did(KEY)).build();
  }

  /** Seals {@code draft} as {@link #KEY}'s genesis receipt. */
  static SealedReceipt sealGenesis(MeshReceipt.Builder draft) {
    return Jcr1.seal(genesis(draft), KEY);
  }

  /** Signs {@code core} as a JCR-1 envelope under {@code key}'s own kid. */
  static Envelope signCore(CborValue core, SigningKey key) {
    return signPayload(core.encode(), key);
  }

  /** Signs arbitrary payload bytes as a JCR-1 envelope under {@code key}'s own kid. */
  static Envelope signPayload(byte[] payload, SigningKey key) {
    CoseSign1 cose =
        CoseSign1.sign(Jcr1.protectedHeader(did(key)), CborMap.of(List.of()), payload, key);
    return Envelope.of(cose.encode());
  }

  /** Returns {@code map} with {@code key} set to {@code value} (added or replaced). */
  static CborMap with(CborMap map, String key, CborValue value) {
    List<CborMap.Entry> entries = new ArrayList<>();
    for (CborMap.Entry e : map.entries()) {
      if (!e.key().equals(new CborText(key))) {
        entries.add(e);
      }
    }
    entries.add(new CborMap.Entry(new CborText(key), value));
    return CborMap.of(entries);
  }

  /** Returns {@code map} without {@code key}. */
  static CborMap without(CborMap map, String key) {
    List<CborMap.Entry> entries = new ArrayList<>();
    for (CborMap.Entry e : map.entries()) {
      if (!e.key().equals(new CborText(key))) {
        entries.add(e);
      }
    }
    return CborMap.of(entries);
  }
}
