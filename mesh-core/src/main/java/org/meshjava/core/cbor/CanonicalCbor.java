package org.meshjava.core.cbor;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

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
  private static final int MAJOR_UNSIGNED = 0;
  private static final int MAJOR_NEGATIVE = 1;
  private static final int MAJOR_BYTES = 2;
  private static final int MAJOR_TEXT = 3;
  private static final int MAJOR_ARRAY = 4;
  private static final int MAJOR_MAP = 5;
  private static final int MAJOR_TAG = 6;
  private static final int MAJOR_SIMPLE = 7;

  private CanonicalCbor() {}

  /** Returns the canonical encoding of {@code value}. */
  public static byte[] encode(CborValue value) {
    Out out = new Out();
    write(out, value);
    return out.toByteArray();
  }

  /**
   * A growable byte buffer without {@link java.io.ByteArrayOutputStream}'s per-call locking:
   * encoding writes byte by byte, and sealing a receipt encodes several maps.
   */
  private static final class Out {
    private byte[] buf = new byte[64];
    private int len;

    void write(int b) {
      if (len == buf.length) {
        buf = Arrays.copyOf(buf, buf.length * 2);
      }
      buf[len++] = (byte) b;
    }

    void writeBytes(byte[] b) {
      if (len + b.length > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + b.length));
      }
      System.arraycopy(b, 0, buf, len, b.length);
      len += b.length;
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
    if (bytes.length > limits.maxInputBytes()) {
      throw new CborDecodeException(
          CborRule.INPUT_TOO_LARGE, 0, bytes.length + " bytes exceed " + limits.maxInputBytes());
    }
    Decoder d = new Decoder(bytes, limits);
    CborValue v = d.item(1);
    if (d.pos != bytes.length) {
      throw new CborDecodeException(
          CborRule.TRAILING_BYTES, d.pos, (bytes.length - d.pos) + " bytes after the item");
    }
    return v;
  }

  /**
   * Decodes exactly one canonical item occupying all of the byte string {@code embedded}: CBOR
   * carried inside a byte string (a snapshot's body, a COSE payload), read in place rather than
   * copied out first with {@link CborBytes#bytes()}. Offsets in a refusal count from the start of
   * the byte string's content.
   *
   * @throws CborDecodeException naming the rule and offset if the content is not canonical or
   *     exceeds {@code limits}
   */
  public static CborValue decode(CborBytes embedded, CborLimits limits) throws CborDecodeException {
    return decode(embedded.unsafeBytes(), limits);
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
        byte[] raw = b.unsafeBytes();
        head(out, MAJOR_BYTES, raw.length);
        out.writeBytes(raw);
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
    int mt = major << 5;
    if (arg >= 0 && arg < 24) {
      out.write(mt | (int) arg);
    } else if (arg >= 0 && arg <= 0xFF) {
      out.write(mt | 24);
      out.write((int) arg);
    } else if (arg >= 0 && arg <= 0xFFFF) {
      out.write(mt | 25);
      out.write((int) (arg >>> 8));
      out.write((int) arg);
    } else if (arg >= 0 && arg <= 0xFFFF_FFFFL) {
      out.write(mt | 26);
      for (int s = 24; s >= 0; s -= 8) {
        out.write((int) (arg >>> s));
      }
    } else {
      out.write(mt | 27);
      for (int s = 56; s >= 0; s -= 8) {
        out.write((int) (arg >>> s));
      }
    }
  }

  // ---- decoding ---------------------------------------------------------------------------

  private static final class Decoder {
    private final byte[] in;
    private final CborLimits limits;
    private int pos;
    private int items;

    Decoder(byte[] in, CborLimits limits) {
      this.in = in;
      this.limits = limits;
    }

    CborValue item(int depth) throws CborDecodeException {
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
        case MAJOR_BYTES -> CborBytes.adopt(take(arg, start));
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
            byte[] keyBytes = Arrays.copyOfRange(in, keyStart, pos);
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
      if (in.length - pos < width) {
        throw new CborDecodeException(
            CborRule.TRUNCATED, pos, "argument needs " + width + " bytes");
      }
      long v = 0;
      for (int i = 0; i < width; i++) {
        v = (v << 8) | (in[pos++] & 0xFF);
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
            "argument " + Long.toUnsignedString(v) + " encoded in " + width + " bytes");
      }
      return v;
    }

    private int count(long arg, int start, int minBytesEach) throws CborDecodeException {
      // Each element needs at least one byte, so a count beyond the remaining input is a lie.
      if (arg < 0 || arg > (long) (in.length - pos) / minBytesEach) {
        throw new CborDecodeException(
            CborRule.LENGTH_LIMIT,
            start,
            "declared "
                + Long.toUnsignedString(arg)
                + " elements, only "
                + (in.length - pos)
                + " bytes remain");
      }
      return (int) arg;
    }

    private byte[] take(long length, int start) throws CborDecodeException {
      if (length < 0 || length > in.length - pos) {
        throw new CborDecodeException(
            CborRule.LENGTH_LIMIT,
            start,
            "declared length "
                + Long.toUnsignedString(length)
                + " exceeds the "
                + (in.length - pos)
                + " bytes remaining");
      }
      byte[] out = Arrays.copyOfRange(in, pos, pos + (int) length);
      pos += (int) length;
      return out;
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

    private int readByte() throws CborDecodeException {
      if (pos >= in.length) {
        throw new CborDecodeException(CborRule.TRUNCATED, pos, "input ended");
      }
      return in[pos++] & 0xFF;
    }

    private static String utf8(byte[] raw, int start) throws CborDecodeException {
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
