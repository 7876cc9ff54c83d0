package org.meshjava.receipt;

import static org.meshjava.core.cbor.CanonicalCbor.MAJOR_BYTES;
import static org.meshjava.core.cbor.CanonicalCbor.MAJOR_MAP;
import static org.meshjava.core.cbor.CanonicalCbor.MAJOR_NEGATIVE;
import static org.meshjava.core.cbor.CanonicalCbor.MAJOR_TEXT;
import static org.meshjava.core.cbor.CanonicalCbor.MAJOR_UNSIGNED;

import java.util.Arrays;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborText;
import org.meshjava.receipt.internal.SignedCoreSink;

/**
 * A receipt's signed core written straight to its canonical CBOR (§6.1), the bytes the seal signs:
 * {@link SignedCore#write}'s fields, already in canonical order, written in one pass after room for
 * the map's head, which is filled in once the fields are counted, and copied out once at its exact
 * size. Building the core as a map first (a text key, a value and an entry per field, each key
 * encoded alone to sort it, then the whole encoded again) made about 3 KB more garbage per serve
 * for under a kilobyte of output, and cost more CPU than writing it (session 37, mesh-bench).
 *
 * <p>Byte for byte {@code SignedCore.encode(r).encode()}: {@code SignedCoreBytesTest} holds the two
 * equal over every shape of receipt and over random ones. Thread-safe: each platform thread writes
 * into a buffer of its own, kept between calls (at most {@value #KEPT_MAX} bytes).
 */
final class SignedCoreBytes {
  /** Room for a map head of up to 255 entries (a core has at most 33). */
  private static final int HEAD_ROOM = 2;

  /** A served receipt's core is 600 to 900 bytes; a larger one (long names) grows the buffer. */
  private static final int FIRST_SIZE = 1024;

  private SignedCoreBytes() {}

  /**
   * Returns {@code r}'s signed core in canonical CBOR.
   *
   * @throws IllegalArgumentException if a name in it holds an unpaired surrogate, which has no
   *     UTF-8 (as {@code CborText} refuses it)
   */
  static byte[] of(MeshReceipt r) {
    byte[][] slot = Thread.currentThread().isVirtual() ? null : KEPT.get();
    byte[] kept = null;
    if (slot != null) {
      kept = slot[0];
      // Taken out while this call writes: a nested call on this thread (never expected, writing
      // seals nothing) finds the slot empty and writes into a buffer of its own.
      slot[0] = null;
    }
    Write w = new Write(kept != null ? kept : new byte[FIRST_SIZE]);
    try {
      SignedCore.write(r, w);
      int head = CanonicalCbor.headLength(w.fields);
      int start = HEAD_ROOM - head;
      CanonicalCbor.putHead(w.out, start, MAJOR_MAP, w.fields);
      // Every byte copied out was written by this call: the head from start, the fields after it.
      return Arrays.copyOfRange(w.out, start, w.at);
    } finally {
      if (slot != null && w.out.length <= KEPT_MAX) {
        slot[0] = w.out; // a core with very long names is not kept alive by a thread
      }
    }
  }

  /** The largest buffer a thread keeps between seals. */
  private static final int KEPT_MAX = 16 << 10;

  /**
   * Each platform thread's buffer, reused from seal to seal: a new 1 KiB buffer per seal was about
   * 1.2 KB of a proxied serve's garbage (session 38's ranking, mesh-bench). A virtual thread lives
   * for one task, so it writes into a buffer of its own.
   *
   * <p>The slot holds a one-element {@code byte[][]}, a JDK type, never an object of a class of
   * ours: a thread of a container's pool outlives a redeployed application, and a value of our
   * class in its thread-local map would keep the old application's class loader (and every class it
   * loaded) reachable for as long as the thread lives. The small writer each call makes in its
   * place costs no measurable CPU per seal (session 40, thread CPU time in-process, the medians of
   * two runs each: 871 and 799 ns with the writer kept, 783 and 839 ns without).
   */
  private static final ThreadLocal<byte[][]> KEPT = ThreadLocal.withInitial(() -> new byte[1][]);

  /** The entries written after room for the map's head, counted. */
  private static final class Write implements SignedCoreSink<RuntimeException> {
    byte[] out;
    int at = HEAD_ROOM;
    int fields;

    Write(byte[] out) {
      this.out = out;
    }

    @Override
    public void text(String key, String value) {
      fields++;
      put(key);
      put(value);
    }

    @Override
    public void uint(String key, long value) {
      fields++;
      put(key);
      room(9);
      at =
          value >= 0
              ? CanonicalCbor.putHead(out, at, MAJOR_UNSIGNED, value)
              : CanonicalCbor.putHead(out, at, MAJOR_NEGATIVE, -1 - value);
    }

    @Override
    public void bytes(String key, byte[] value) {
      fields++;
      put(key);
      room(9 + value.length);
      at = CanonicalCbor.putHead(out, at, MAJOR_BYTES, value.length);
      System.arraycopy(value, 0, out, at, value.length);
      at += value.length;
    }

    /** Writes a text item as {@code CborText} encodes it: the UTF-8 of the Java string. */
    private void put(String text) {
      int n = text.length();
      room(9 + n);
      int mark = at;
      at = CanonicalCbor.putHead(out, at, MAJOR_TEXT, n);
      for (int i = 0; i < n; i++) {
        char c = text.charAt(i);
        if (c >= 0x80) {
          // Not ASCII (rare: a name beyond ASCII): written again as CborText encodes it, which
          // refuses an unpaired surrogate as building the map did. String.getBytes would put '?'
          // in its place, and the seal would sign a name the receipt does not hold.
          byte[] item = CanonicalCbor.encode(new CborText(text));
          at = mark;
          room(item.length);
          System.arraycopy(item, 0, out, at, item.length);
          at += item.length;
          return;
        }
        out[at++] = (byte) c;
      }
    }

    /** Makes room for {@code n} more bytes. */
    private void room(int n) {
      if (at + n > out.length) {
        out = Arrays.copyOf(out, Math.max(out.length * 2, at + n));
      }
    }
  }
}
