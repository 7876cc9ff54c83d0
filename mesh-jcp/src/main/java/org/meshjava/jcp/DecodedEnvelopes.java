package org.meshjava.jcp;

import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborItemMemo;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborTag;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;

/**
 * Signed-grant envelopes already decoded, by the canonical CBOR value each was read from.
 *
 * <p>Why: every granted request carries its whole chain, and a caller presents the same chain for
 * request after request with only the nonce and the signature new. Reading an envelope into a
 * {@link SignedGrant} (every field checked, the grant re-encoded, its id hashed, the re-encoding
 * compared with the input) was about two thirds of decoding a presentation of two links.
 *
 * <p>Why it is sound: decoding an envelope is a pure function of its value. Canonical CBOR values
 * are equal exactly when their encodings are (the decoder refuses every other encoding), so a value
 * equal to one decoded before is byte for byte that envelope, and the immutable {@link SignedGrant}
 * made from it then is the one a fresh decode would make. Only successful decodes are kept; a
 * refused envelope is read (and refused) again every time, with its own path in the message.
 * Nothing here is a judgement about the grant: signatures are verified by the {@link Gate} (once
 * per chain), and the window, revocation, actions, resources and caveats on every request, whatever
 * this holds.
 *
 * <p>Bounded so hostile input cannot grow it: at most {@value #LIMIT} envelopes of at most {@value
 * #MAX_ENCODED} bytes and {@value #MAX_ITEMS} CBOR items each, cleared when full (a steward serves
 * a handful of chains; a flood of distinct ones only costs the decode this saves). The item bound
 * is what bounds memory: an envelope is held as its decoded value and grant, some tens of bytes of
 * heap for every item, and an item can be one byte of input (an empty map in an unknown caveat,
 * which no signature check has yet refused), so 2 KB of input could hold over 100 KB. It holds one
 * envelope per hash code, the latest: a value's hash code is a fixed formula over bytes the client
 * chooses (a signature the gate has not yet checked, for one), so a map keyed by the values
 * themselves let a client park hundreds of envelopes on one hash code and make every lookup of it
 * compare against each of them (milliseconds a link, where a decode takes tens of microseconds).
 * Thread-safe.
 */
final class DecodedEnvelopes {
  /** The most envelopes held. */
  static final int LIMIT = 512;

  /** The largest envelope kept, in bytes of its encoding (a typical link is about 340). */
  static final int MAX_ENCODED = 2048;

  private static final ConcurrentHashMap<Integer, Held> DECODED = new ConcurrentHashMap<>();

  /**
   * The most CBOR items (maps, arrays and the keys, values and elements in them) in an envelope
   * kept. A link of a typical chain has about 30; one naming as many resources as {@link
   * #MAX_ENCODED} lets in stays under this too ({@code DecodedEnvelopesTest}).
   */
  static final int MAX_ITEMS = 96;

  /**
   * The same envelopes by their bytes, where a presentation or a revocation carries them: items at
   * depth 3 of {@code {"chain": [envelope, …], …}}, the statement's map being depth 1. A statement
   * read with it takes a link it met before whole from its bytes, not read into values again, and
   * the value it takes is the very one {@link #get} holds, whose hash code its map keeps, so both
   * lookups cost a pass over the link's bytes rather than walks of its decoded tree. The two clear
   * apart (each when full). After this one clears, it reads a link afresh into a new value, equal
   * to the one {@link #get} holds; the first lookup with it walks both trees once and then holds
   * the new value in the old one's place, so later lookups with the value this memo hands out are
   * again the same object. After {@link #get}'s clears, the link is decoded once and held again.
   * Under the same bounds as the values; each link it holds costs its bytes again (at most {@value
   * #LIMIT} times {@value #MAX_ENCODED} bytes).
   */
  static final CborItemMemo STATEMENT_LINKS = new CborItemMemo(3, MAX_ENCODED, MAX_ITEMS, LIMIT);

  /** An envelope's value and what it decoded to. */
  private record Held(CborValue value, SignedGrant decoded) {}

  private DecodedEnvelopes() {}

  /** The envelope decoded before from a value equal to {@code value}, or null. */
  static @Nullable SignedGrant get(CborValue value) {
    if (!(value instanceof CborMap)) {
      return null;
    }
    int hash = value.hashCode();
    Held held = DECODED.get(hash);
    if (held == null || !held.value().equals(value)) {
      return null;
    }
    if (held.value() != value) {
      // An equal value read apart (STATEMENT_LINKS cleared and read the link again): hold this one
      // instead, so the next lookup with the memo's value is answered by identity, not by walking
      // both trees again. Only in place of the entry just read, so the map never grows here.
      DECODED.replace(hash, held, new Held(value, held.decoded()));
    }
    return held.decoded();
  }

  /** The value held for an envelope equal to {@code value}, or null; for tests. */
  static @Nullable CborValue heldValue(CborValue value) {
    Held held = DECODED.get(value.hashCode());
    return held != null && held.value().equals(value) ? held.value() : null;
  }

  /** Keeps {@code decoded}, which was read from {@code value}, if it is small enough. */
  static void put(CborValue value, SignedGrant decoded) {
    if (decoded.encodedLength() > MAX_ENCODED || itemsLeft(value, MAX_ITEMS) < 0) {
      return;
    }
    if (DECODED.size() >= LIMIT) {
      DECODED.clear();
    }
    DECODED.put(value.hashCode(), new Held(value, decoded));
  }

  /**
   * {@code left} less the number of items in {@code value}; the count stops once it is below zero,
   * so a large value costs no more than {@code left} steps.
   */
  private static int itemsLeft(CborValue value, int left) {
    int rest = left - 1;
    switch (value) {
      case CborArray a -> {
        for (CborValue item : a.items()) {
          if (rest < 0) {
            return rest;
          }
          rest = itemsLeft(item, rest);
        }
      }
      case CborMap m -> {
        for (CborMap.Entry e : m.entries()) {
          if (rest < 0) {
            return rest;
          }
          rest = itemsLeft(e.value(), itemsLeft(e.key(), rest));
        }
      }
      case CborTag t -> rest = itemsLeft(t.content(), rest);
      case CborInt _, CborBytes _, CborText _ -> {}
    }
    return rest;
  }

  /** How many envelopes are held; for the test that the bound holds. */
  static int size() {
    return DECODED.size();
  }

  /** Forgets every envelope; for tests that compare a cold decode with a warm one. */
  static void clear() {
    DECODED.clear();
    STATEMENT_LINKS.clear();
  }
}
