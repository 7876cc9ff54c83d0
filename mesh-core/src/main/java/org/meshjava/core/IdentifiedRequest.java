package org.meshjava.core;

import java.util.HexFormat;
import java.util.Objects;
import org.meshjava.core.internal.RequestCbor;

/**
 * A {@link ServeRequest} with its canonical encoding and its request id (SPEC.md 10.2, 10.3),
 * computed once, here and only here. A serve needs the id for the grant's decision, a seeded engine
 * and the receipt, and the encoding for the journal's decision record; a record cannot cache them,
 * so a steward encodes the request once per serve and hands this down instead of the request, and
 * every consumer reads the same bytes and the same id.
 *
 * <p>Only {@link #of(ServeRequest)} makes one, from the request itself, so an id or encoding handed
 * on with a request is always that request's: no caller can pair a request with another's id.
 *
 * <p>Immutable and thread-safe; {@link #encoded()} returns a copy.
 */
public final class IdentifiedRequest {
  private final ServeRequest request;
  private final byte[] encoded;
  private final ContentId id;

  private IdentifiedRequest(ServeRequest request) {
    this.request = request;
    this.encoded = RequestCbor.encode(request).encode();
    this.id = ContentId.ofBytes(encoded);
  }

  /** Encodes {@code request} canonically and hashes the encoding for its id. */
  public static IdentifiedRequest of(ServeRequest request) {
    return new IdentifiedRequest(Objects.requireNonNull(request, "request"));
  }

  /** The request. */
  public ServeRequest request() {
    return request;
  }

  /** The request id: byte for byte {@link ServeRequest#id()}. */
  public ContentId id() {
    return id;
  }

  /** The canonical encoding, a fresh copy: byte for byte {@link ServeRequest#encode()}. */
  public byte[] encoded() {
    return encoded.clone();
  }

  /**
   * The canonical encoding as lowercase hex (how a journal record carries it), without the copy
   * {@link #encoded()} makes.
   */
  public String encodedHex() {
    return HexFormat.of().formatHex(encoded);
  }

  /** Equal when the requests are (and so their encodings and ids). */
  @Override
  public boolean equals(Object o) {
    return o instanceof IdentifiedRequest other && request.equals(other.request);
  }

  @Override
  public int hashCode() {
    return request.hashCode();
  }

  @Override
  public String toString() {
    return "IdentifiedRequest[" + id.hex() + ", " + encoded.length + " bytes]";
  }
}
