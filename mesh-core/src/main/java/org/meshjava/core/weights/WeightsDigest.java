package org.meshjava.core.weights;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.meshjava.core.CanonicalForm;
import org.meshjava.core.ContentId;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;

/**
 * The list of files a forward pass reads, in path order, and its content address: the weights
 * digest of §3.6.
 *
 * <p>Encoding, exactly: a canonical CBOR array with one element per file, ordered by the unsigned
 * byte order of the paths' UTF-8 bytes; each element a two-element array of the path (text, as
 * {@link WeightsFile#path()}) and the file's BLAKE3 as 64 lowercase hex digits (text) — the way
 * every content id enters a canonical form in mesh-java. The digest is the {@link ContentId} of
 * that encoding: BLAKE3 of its bytes.
 *
 * <p>Immutable and thread-safe.
 *
 * @param files the files, sorted on construction; paths unique
 */
public record WeightsDigest(List<WeightsFile> files) implements CanonicalForm {
  private static final Comparator<WeightsFile> PATH_ORDER =
      (a, b) ->
          Arrays.compareUnsigned(
              a.path().getBytes(StandardCharsets.UTF_8), b.path().getBytes(StandardCharsets.UTF_8));

  /**
   * Sorts the files into path order and refuses an empty list or a repeated path.
   *
   * @throws IllegalArgumentException if {@code files} is empty or names a path twice
   */
  public WeightsDigest {
    List<WeightsFile> sorted = new ArrayList<>(files);
    sorted.sort(PATH_ORDER);
    if (sorted.isEmpty()) {
      throw new IllegalArgumentException("a weights digest covers at least one file");
    }
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).path().equals(sorted.get(i - 1).path())) {
        throw new IllegalArgumentException("path '" + sorted.get(i).path() + "' listed twice");
      }
    }
    files = List.copyOf(sorted);
  }

  /** Returns the path-ordered array of {@code [path, hex digest]} pairs in canonical CBOR. */
  @Override
  public byte[] encode() {
    List<CborValue> items = new ArrayList<>(files.size());
    for (WeightsFile f : files) {
      items.add(new CborArray(List.of(new CborText(f.path()), new CborText(f.digest().hex()))));
    }
    return new CborArray(items).encode();
  }

  /** The weights digest: BLAKE3 of {@link #encode()}'s bytes. */
  public ContentId digest() {
    return ContentId.of(this);
  }

  /** The binding a backend reports: this digest with the precision its forward pass runs at. */
  public WeightsBinding bind(String precision) {
    return new WeightsBinding(digest(), precision);
  }
}
