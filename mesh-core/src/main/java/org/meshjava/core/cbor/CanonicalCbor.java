package org.meshjava.core.cbor;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The canonical CBOR codec of mesh/1: RFC 8949 §4.2.1 core deterministic encoding over the value
 * model of {@link CborValue}.
 *
 * <p>Design note. Jackson's CBOR module parses leniently (it accepts non-shortest arguments and
 * does not expose them), so it cannot tell a canonical encoding from a non-canonical one. Signed
 * bytes must round-trip exactly, so this codec reads the bytes itself and checks each rule as it
 * goes: shortest arguments, definite lengths, no simple values, sorted unique map keys, no trailing
 * bytes, bounded depth, bounded lengths. Because every rule is checked, a decoded value re-encodes
 * to exactly the input bytes.
 *
 * <p>Stateless and thread-safe.
 */
public final class CanonicalCbor {
  // The major types of RFC 8949 §3.1, the first argument of putHead. Public so that a writer of a
  // fixed shape (the receipt's signed core) names them from here rather than repeating the
  // numbers; compile-time constants, so javac writes the number itself into every caller.

  /** Major type 0: an unsigned integer, the argument its value. */
  public static final int MAJOR_UNSIGNED = 0;

  /** Major type 1: a negative integer, the argument {@code -1 - value}. */
  public static final int MAJOR_NEGATIVE = 1;

  /** Major type 2: a byte string, the argument its length. */
  public static final int MAJOR_BYTES = 2;

  /** Major type 3: a UTF-8 text string, the argument its length in bytes. */
  public static final int MAJOR_TEXT = 3;

  /** Major type 4: an array, the argument its number of items. */
  public static final int MAJOR_ARRAY = 4;

  /** Major type 5: a map, the argument its number of entries. */
  public static final int MAJOR_MAP = 5;

  /** Major type 6: a tag, the argument the tag number. */
  public static final int MAJOR_TAG = 6;

  /** Major type 7: simple values and floats, none of which mesh/1's canonical form admits. */
  public static final int MAJOR_SIMPLE = 7;

  private CanonicalCbor() {}

  /** Returns the canonical encoding of {@code value}. */
  public static byte[] encode(CborValue value) {
    // A lone integer or text (every map key, encoded alone to order it in CborMap.of) goes into an
    // array of exactly its size, not a growable buffer and a copy of it: over a third of what
    // building a receipt's signed core allocated.
    if (value instanceof CborInt(long v)) {
      int major = v >= 0 ? MAJOR_UNSIGNED : MAJOR_NEGATIVE;
      long arg = v >= 0 ? v : -1 - v;
      Out out = new Out(null, headLength(arg));
      head(out, major, arg);
      return out.buf;
    }
    if (value instanceof CborText(String t)) {
      byte[] raw = t.getBytes(StandardCharsets.UTF_8);
      Out out = new Out(null, headLength(raw.length) + raw.length);
      head(out, MAJOR_TEXT, raw.length);
      out.writeBytes(raw);
      return out.buf;
    }
    if (Thread.currentThread().isVirtual()) {
      // A virtual thread lives for one task: a buffer kept for it would be made once and dropped.
      Out out = new Out(null);
      write(out, value);
      return out.toByteArray();
    }
    // Written into this thread's scratch buffer and copied out once at its exact size: a growing
    // buffer of its own (64 bytes, doubled as needed, then copied out) allocated about three times
    // the result for every map a serve encodes (the signed core, the request, the journal record).
    Out out = SCRATCH.get();
    if (out.len != 0) {
      // Never expected (writing calls no encode), but a nested call must not share the buffer.
      Out own = new Out(null);
      write(own, value);
      return own.toByteArray();
    }
    try {
      write(out, value);
      return out.toByteArray();
    } finally {
      out.len = 0;
      if (out.buf.length > SCRATCH_KEPT) {
        // One large value (a snapshot's body) is not kept alive by the thread that encoded it.
        out.buf = new byte[SCRATCH_START];
      }
    }
  }

  /** The scratch buffer's first size: a receipt's signed core and a request fit in it. */
  private static final int SCRATCH_START = 2048;

  /** The largest scratch buffer a thread keeps between encodings. */
  private static final int SCRATCH_KEPT = 64 << 10;

  /** Each platform thread's buffer for {@link #encode}; empty between calls. */
  private static final ThreadLocal<Out> SCRATCH =
      ThreadLocal.withInitial(() -> new Out(null, SCRATCH_START));

  /**
   * Returns the canonical encoding of {@code value} as read-only buffers whose concatenation, in
   * order, is {@link #encode}'s result, without copying the large byte strings that are views
   * ({@link CborBytes#viewOf}, or decoded in place) of at least {@value #IN_PLACE_BYTES} bytes:
   * each of those is one of the buffers. For writing or hashing a value of hundreds of megabytes (a
   * journal snapshot) without building it in memory first. The buffers share the views' bytes, so
   * they are valid for as long as those are.
   */
  public static List<ByteBuffer> encodeSegments(CborValue value) {
    List<ByteBuffer> segments = new ArrayList<>();
    Out out = new Out(segments);
    write(out, value);
    out.flushTo(segments);
    return List.copyOf(segments);
  }

  /**
   * Returns the canonical head of a byte string of {@code length} bytes: what precedes its content
   * in an encoding (for writing the content from elsewhere, as {@link #encodeSegments} does).
   *
   * @throws IllegalArgumentException if {@code length} is negative
   */
  public static byte[] byteStringHead(long length) {
    if (length < 0) {
      throw new IllegalArgumentException("a length is not negative: " + length);
    }
    Out out = new Out(null);
    head(out, MAJOR_BYTES, length);
    return out.toByteArray();
  }

  /**
   * A growable byte buffer without {@link java.io.ByteArrayOutputStream}'s per-call locking:
   * encoding writes byte by byte, and sealing a receipt encodes several maps.
   */
  private static final class Out {
    private byte[] buf;
    private int len;

    /**
     * Where large views go as they are, with the bytes written before each, when encoding to
     * segments; null when encoding to one array.
     */
    private final @Nullable List<ByteBuffer> segments;

    Out(@Nullable List<ByteBuffer> segments) {
      this(segments, 64);
    }

    Out(@Nullable List<ByteBuffer> segments, int capacity) {
      this.segments = segments;
      this.buf = new byte[capacity];
    }

    /** Writes a byte string's content: in place when it is a large view and segments are kept. */
    void writeContent(CborBytes b) {
      byte[] raw = b.ownArray();
      if (raw != null) {
        writeBytes(raw);
        return;
      }
      List<ByteBuffer> s = segments;
      if (s != null && b.length() >= IN_PLACE_BYTES) {
        flushTo(s);
        s.add(b.content().duplicate());
      } else {
        writeBytes(b.content());
      }
    }

    /** Ends the current segment (if it holds anything) and starts a new one. */
    void flushTo(List<ByteBuffer> s) {
      if (len > 0) {
        s.add(ByteBuffer.wrap(toByteArray()).asReadOnlyBuffer());
        len = 0;
      }
    }

    /** Makes room for {@code n} more bytes. */
    void reserve(int n) {
      if (len + n > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
      }
    }

    void writeBytes(byte[] b) {
      if (len + b.length > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + b.length));
      }
      System.arraycopy(b, 0, buf, len, b.length);
      len += b.length;
    }

    void writeBytes(ByteBuffer b) {
      int n = b.remaining();
      if (len + n > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
      }
      b.get(b.position(), buf, len, n);
      len += n;
    }

    byte[] toByteArray() {
      return Arrays.copyOf(buf, len);
    }
  }

  /**
   * Decodes exactly one canonical item occupying all of {@code bytes}, under default limits.
   *
   * @throws CborDecodeException naming the rule and offset if the bytes are not canonical
   */
  public static CborValue decode(byte[] bytes) throws CborDecodeException {
    return decode(bytes, CborLimits.DEFAULT);
  }

  /**
   * Decodes exactly one canonical item occupying all of {@code bytes}.
   *
   * @throws CborDecodeException naming the rule and offset if the bytes are not canonical or exceed
   *     {@code limits}
   */
  public static CborValue decode(byte[] bytes, CborLimits limits) throws CborDecodeException {
    // The caller's array may change after this returns, so nothing decoded may be a view of it.
    return decode(ByteBuffer.wrap(bytes), limits, false, null);
  }

  /**
   * Decodes exactly one canonical item occupying all of {@code bytes}, as {@link #decode(byte[],
   * CborLimits)} does, but takes each item at {@code memo}'s depth whose bytes {@code memo} holds
   * from it, and offers it each other item at that depth that it reads. The value returned, and the
   * refusal thrown, are the same as without the memo (see {@link CborItemMemo} for why).
   *
   * @throws CborDecodeException naming the rule and offset if the bytes are not canonical or exceed
   *     {@code limits}
   */
  public static CborValue decode(byte[] bytes, CborLimits limits, CborItemMemo memo)
      throws CborDecodeException {
    return decode(ByteBuffer.wrap(bytes), limits, false, Objects.requireNonNull(memo, "memo"));
  }

  /**
   * Decodes exactly one canonical item occupying all of the byte string {@code embedded}: CBOR
   * carried inside a byte string (a snapshot's body, a COSE payload), read in place rather than
   * copied out first with {@link CborBytes#bytes()}. Offsets in a refusal count from the start of
   * the byte string's content. Byte strings of at least {@value #IN_PLACE_BYTES} bytes in it are
   * views of {@code embedded}'s bytes, which never change, as {@link #decodeInPlace} makes them.
   *
   * @throws CborDecodeException naming the rule and offset if the content is not canonical or
   *     exceeds {@code limits}
   */
  public static CborValue decode(CborBytes embedded, CborLimits limits) throws CborDecodeException {
    return decode(embedded.content(), limits, true, null);
  }

  /**
   * Byte strings at least this long are read in place by {@link #decodeInPlace}; shorter ones are
   * copied, so that a small value kept long after (an id, a key) does not hold a large input in
   * memory.
   */
  public static final int IN_PLACE_BYTES = 4096;

  /**
   * Decodes exactly one canonical item occupying the bytes from {@code in}'s position to its limit,
   * reading each byte string of at least {@value #IN_PLACE_BYTES} bytes where it lies instead of
   * copying it: that byte string's {@link CborBytes#asReadOnlyBuffer()} is a view of {@code in}.
   * For large inputs already in memory that do not change, such as a memory-mapped file of one's
   * own: a journal snapshot of a million receipts is about 150 MB, which a restart would otherwise
   * copy into fresh memory. The caller promises that those bytes never change while anything
   * decoded from them is held. {@code in}'s position and limit are left as they were; offsets in a
   * refusal count from its position.
   *
   * @throws CborDecodeException naming the rule and offset if the bytes are not canonical or exceed
   *     {@code limits}
   */
  public static CborValue decodeInPlace(ByteBuffer in, CborLimits limits)
      throws CborDecodeException {
    return decode(in, limits, true, null);
  }

  private static CborValue decode(
      ByteBuffer in, CborLimits limits, boolean inPlace, @Nullable CborItemMemo memo)
      throws CborDecodeException {
    int length = in.remaining();
    if (length > limits.maxInputBytes()) {
      throw new CborDecodeException(
          CborRule.INPUT_TOO_LARGE, 0, length + " bytes exceed " + limits.maxInputBytes());
    }
    Decoder d = new Decoder(in.slice(), limits, inPlace, memo);
    CborValue v = d.item(1);
    if (d.pos != length) {
      throw new CborDecodeException(
          CborRule.TRAILING_BYTES, d.pos, (length - d.pos) + " bytes after the item");
    }
    return v;
  }

  // ---- encoding ---------------------------------------------------------------------------

  private static void write(Out out, CborValue value) {
    switch (value) {
      case CborInt i -> {
        long v = i.value();
        if (v >= 0) {
          head(out, MAJOR_UNSIGNED, v);
        } else {
          head(out, MAJOR_NEGATIVE, -1 - v);
        }
      }
      case CborBytes b -> {
        head(out, MAJOR_BYTES, b.length());
        out.writeContent(b);
      }
      case CborText t -> {
        byte[] raw = t.value().getBytes(StandardCharsets.UTF_8);
        head(out, MAJOR_TEXT, raw.length);
        out.writeBytes(raw);
      }
      case CborArray a -> {
        head(out, MAJOR_ARRAY, a.items().size());
        for (CborValue item : a.items()) {
          write(out, item);
        }
      }
      case CborMap m -> {
        head(out, MAJOR_MAP, m.size());
        for (CborMap.Entry e : m.entries()) {
          write(out, e.key());
          write(out, e.value());
        }
      }
      case CborTag t -> {
        head(out, MAJOR_TAG, t.tag());
        write(out, t.content());
      }
    }
  }

  /** Writes a major type with its argument in the shortest form; {@code arg} is unsigned. */
  private static void head(Out out, int major, long arg) {
    // Exactly the head's size: a lone integer or text is written into an array of its exact size
    // and returned as it is (encode), so a spare byte here would end up in its encoding.
    out.reserve(headLength(arg));
    out.len = putHead(out.buf, out.len, major, arg);
  }

  /**
   * How many bytes the canonical head of an item whose argument is {@code arg} takes: 1, 2, 3, 5 or
   * 9 (RFC 8949 §4.2.1, shortest form). For a caller that writes a value of a fixed shape straight
   * into an array of its exact size ({@link #putHead}).
   *
   * @param arg the head's argument, read as unsigned (a length, an unsigned integer, a tag)
   */
  public static int headLength(long arg) {
    if (arg >= 0 && arg < 24) {
      return 1;
    } else if (arg >= 0 && arg <= 0xFF) {
      return 2;
    } else if (arg >= 0 && arg <= 0xFFFF) {
      return 3;
    } else if (arg >= 0 && arg <= 0xFFFF_FFFFL) {
      return 5;
    }
    return 9;
  }

  /**
   * Writes the canonical head of major type {@code major} with argument {@code arg} into {@code
   * dst} at {@code at}, in the shortest form, and returns the index after it. The caller writes the
   * content that follows and, for a map, its entries in canonical key order: this writes one head,
   * it orders nothing.
   *
   * @param major the major type, 0 to 7
   * @param arg the argument, read as unsigned
   * @throws IllegalArgumentException if {@code major} is not 0 to 7
   * @throws ArrayIndexOutOfBoundsException if {@code dst} has fewer than {@link #headLength} bytes
   *     from {@code at}
   */
  public static int putHead(byte[] dst, int at, int major, long arg) {
    if (major < 0 || major > MAJOR_SIMPLE) {
      throw new IllegalArgumentException("a CBOR major type is 0 to 7, not " + major);
    }
    int mt = major << 5;
    int n = headLength(arg);
    int i = at;
    switch (n) {
      case 1 -> dst[i++] = (byte) (mt | (int) arg);
      case 2 -> dst[i++] = (byte) (mt | 24);
      case 3 -> dst[i++] = (byte) (mt | 25);
      case 5 -> dst[i++] = (byte) (mt | 26);
      default -> dst[i++] = (byte) (mt | 27);
    }
    for (int s = (n - 2) * 8; s >= 0 && n > 1; s -= 8) {
      dst[i++] = (byte) (arg >>> s);
    }
    return i;
  }

  // ---- decoding ---------------------------------------------------------------------------

  /**
   * Reads one input from position 0 to its limit with absolute gets, so that an array, a byte
   * string's content and a mapped file are read by the same code.
   */
  private static final class Decoder {
    private final ByteBuffer in;
    private final int end;
    private final CborLimits limits;

    /** Whether large byte strings may be views of {@link #in} (its bytes never change). */
    private final boolean inPlace;

    /** Items at its depth already read, taken whole when their bytes come again; or null. */
    private final @Nullable CborItemMemo memo;

    private int pos;
    private int items;

    /** The deepest item begun so far (1 is the whole input). */
    private int deepest;

    Decoder(ByteBuffer in, CborLimits limits, boolean inPlace, @Nullable CborItemMemo memo) {
      this.in = in;
      this.end = in.limit();
      this.limits = limits;
      this.inPlace = inPlace;
      this.memo = memo;
    }

    CborValue item(int depth) throws CborDecodeException {
      return memo != null && depth == memo.depth() ? remembered(memo, depth) : read(depth);
    }

    /**
     * The item at {@link #pos}, taken from {@code memo} if its bytes are held and taking it keeps
     * within the limits; else read in full and offered to {@code memo}.
     */
    private CborValue remembered(CborItemMemo memo, int depth) throws CborDecodeException {
      int start = pos;
      CborItemMemo.Held h = memo.find(in, start, end);
      if (h != null
          && h.items() <= limits.maxItems() - items
          && depth + h.depth() - 1 <= limits.maxDepth()) {
        items += h.items();
        deepest = Math.max(deepest, depth + h.depth() - 1);
        pos = start + h.encoding().length;
        return h.value();
      }
      int itemsBefore = items;
      int deepestBefore = deepest;
      deepest = depth;
      CborValue v = read(depth);
      memo.offer(in, start, pos, v, items - itemsBefore, deepest - depth + 1);
      deepest = Math.max(deepest, deepestBefore);
      return v;
    }

    private CborValue read(int depth) throws CborDecodeException {
      deepest = Math.max(deepest, depth);
      if (depth > limits.maxDepth()) {
        throw new CborDecodeException(
            CborRule.TOO_DEEP, pos, "nesting exceeds depth " + limits.maxDepth());
      }
      if (++items > limits.maxItems()) {
        throw new CborDecodeException(
            CborRule.LENGTH_LIMIT, pos, "more than " + limits.maxItems() + " items");
      }
      int start = pos;
      int initial = readByte();
      int major = initial >>> 5;
      int info = initial & 0x1F;
      if (major == MAJOR_SIMPLE) {
        throw new CborDecodeException(
            CborRule.FORBIDDEN_SIMPLE,
            start,
            "major type 7 (float, boolean, null, undefined or simple value) is not allowed");
      }
      if (info == 31) {
        throw new CborDecodeException(
            CborRule.INDEFINITE_LENGTH, start, "indefinite length is not allowed");
      }
      if (info >= 28) {
        throw new CborDecodeException(
            CborRule.RESERVED_ADDITIONAL_INFO, start, "additional information " + info);
      }
      long arg = argument(info, start);
      return switch (major) {
        case MAJOR_UNSIGNED -> {
          if (arg < 0) {
            throw new CborDecodeException(
                CborRule.INTEGER_RANGE, start, "unsigned integer above 2^63-1");
          }
          yield new CborInt(arg);
        }
        case MAJOR_NEGATIVE -> {
          if (arg < 0) {
            throw new CborDecodeException(
                CborRule.INTEGER_RANGE, start, "negative integer below -2^63");
          }
          yield new CborInt(-1 - arg);
        }
        case MAJOR_BYTES -> bytes(arg, start);
        case MAJOR_TEXT -> new CborText(utf8(take(arg, start), start));
        case MAJOR_ARRAY -> {
          int n = count(arg, start, 1);
          List<CborValue> list = new ArrayList<>(Math.min(n, 1024));
          for (int i = 0; i < n; i++) {
            list.add(item(depth + 1));
          }
          yield new CborArray(list);
        }
        case MAJOR_MAP -> {
          int n = count(arg, start, 2);
          List<CborMap.Entry> entries = new ArrayList<>(Math.min(n, 1024));
          byte[] previousKey = null;
          for (int i = 0; i < n; i++) {
            int keyStart = pos;
            CborValue key = item(depth + 1);
            byte[] keyBytes = new byte[pos - keyStart];
            in.get(keyStart, keyBytes);
            if (previousKey != null) {
              int cmp = Arrays.compareUnsigned(previousKey, keyBytes);
              if (cmp == 0) {
                throw new CborDecodeException(
                    CborRule.DUPLICATE_KEY, keyStart, "key " + abbreviate(keyBytes) + " repeats");
              }
              if (cmp > 0) {
                throw new CborDecodeException(
                    CborRule.UNSORTED_KEYS,
                    keyStart,
                    "key " + abbreviate(keyBytes) + " sorts before the previous key");
              }
            }
            previousKey = keyBytes;
            entries.add(new CborMap.Entry(key, item(depth + 1)));
          }
          yield CborMap.ofSorted(entries);
        }
        case MAJOR_TAG -> {
          if (arg < 0) {
            throw new CborDecodeException(CborRule.INTEGER_RANGE, start, "tag above 2^63-1");
          }
          yield new CborTag(arg, item(depth + 1));
        }
        default -> throw new IllegalStateException("unreachable major type " + major);
      };
    }

    /** Reads the argument and checks it is in shortest form. Returns it as unsigned bits. */
    private long argument(int info, int start) throws CborDecodeException {
      if (info < 24) {
        return info;
      }
      int width = 1 << (info - 24);
      if (end - pos < width) {
        throw new CborDecodeException(
            CborRule.TRUNCATED, pos, "argument needs " + width + " bytes");
      }
      long v = 0;
      for (int i = 0; i < width; i++) {
        v = (v << 8) | (in.get(pos++) & 0xFF);
      }
      long minimum =
          switch (width) {
            case 1 -> 24;
            case 2 -> 0x100;
            case 4 -> 0x1_0000;
            default -> 0x1_0000_0000L;
          };
      if (Long.compareUnsigned(v, minimum) < 0) {
        throw new CborDecodeException(
            CborRule.NON_SHORTEST,
            start,
            "the value "
                + Long.toUnsignedString(v)
                + " is written in a "
                + width
                + "-byte argument; canonical CBOR writes it "
                + shortestPlace(v));
      }
      return v;
    }

    /** Where the shortest form puts {@code v}, for a message: the head, or the narrowest width. */
    private static String shortestPlace(long v) {
      if (v < 24) {
        return "in the head itself";
      }
      int width = v < 0x100 ? 1 : v < 0x1_0000 ? 2 : 4;
      return "in a " + width + "-byte argument";
    }

    private int count(long arg, int start, int minBytesEach) throws CborDecodeException {
      // Each element needs at least one byte, so a count beyond the remaining input is a lie.
      if (arg < 0 || arg > (long) (end - pos) / minBytesEach) {
        throw new CborDecodeException(
            CborRule.LENGTH_LIMIT,
            start,
            "declared "
                + Long.toUnsignedString(arg)
                + " elements, only "
                + (end - pos)
                + " bytes remain");
      }
      return (int) arg;
    }

    /** A byte string's content: in place when large and allowed, else copied. */
    private CborBytes bytes(long length, int start) throws CborDecodeException {
      check(length, start);
      if (inPlace && length >= IN_PLACE_BYTES) {
        CborBytes view = CborBytes.viewOf(in.slice(pos, (int) length));
        pos += (int) length;
        return view;
      }
      return CborBytes.adopt(take(length, start));
    }

    private byte[] take(long length, int start) throws CborDecodeException {
      check(length, start);
      byte[] out = new byte[(int) length];
      in.get(pos, out);
      pos += (int) length;
      return out;
    }

    private void check(long length, int start) throws CborDecodeException {
      if (length < 0 || length > end - pos) {
        throw new CborDecodeException(
            CborRule.LENGTH_LIMIT,
            start,
            "declared length "
                + Long.toUnsignedString(length)
                + " exceeds the "
                + (end - pos)
                + " bytes remaining");
      }
    }

    /**
     * Names a key by the start of its encoding. A hostile key may be megabytes long, and the
     * message must not cost more memory than the input did.
     */
    private static String abbreviate(byte[] encodedKey) {
      int shown = Math.min(encodedKey.length, 24);
      String hex = HexFormat.of().formatHex(encodedKey, 0, shown);
      return shown == encodedKey.length
          ? "h'" + hex + "'"
          : "h'" + hex + "...' (" + encodedKey.length + " bytes)";
    }

    private static boolean ascii(byte[] raw) {
      for (byte b : raw) {
        if (b < 0) {
          return false;
        }
      }
      return true;
    }

    private int readByte() throws CborDecodeException {
      if (pos >= end) {
        throw new CborDecodeException(CborRule.TRUNCATED, pos, "input ended");
      }
      return in.get(pos++) & 0xFF;
    }

    private static String utf8(byte[] raw, int start) throws CborDecodeException {
      // Nearly every text in our formats (keys, did:keys, hex ids) is ASCII, which is valid UTF-8
      // byte for byte; a strict decoder made for each one was most of what decoding a grant
      // allocated. Anything else goes through the strict decoder.
      if (ascii(raw)) {
        return new String(raw, StandardCharsets.US_ASCII);
      }
      try {
        return StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(raw))
            .toString();
      } catch (CharacterCodingException e) {
        throw new CborDecodeException(CborRule.INVALID_UTF8, start, "text is not valid UTF-8");
      }
    }
  }
}
