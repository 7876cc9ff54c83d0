package org.meshjava.cli;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * A socket {@code mesh serve} is to listen on: the bind address as typed and the port (0 for any
 * free one).
 *
 * @param host the bind address or name as given, e.g. {@code 0.0.0.0}, {@code ::1}, {@code
 *     localhost}
 * @param port the port as given
 */
record Listener(String host, int port) {
  Listener {
    // The port is not range-checked here: binding refuses one out of range, naming it.
    Objects.requireNonNull(host, "host");
  }

  /**
   * Whether this listener and {@code other} could not both bind: the same port (0 picks a free one
   * each, so never), on the same address or with either on a wildcard address that takes the
   * other's too.
   *
   * <p>A name is resolved as binding resolves it (first address), so this costs no lookup that
   * binding would not make anyway; a name that does not resolve is compared as typed, and binding
   * then says it is unknown.
   */
  boolean clashesWith(Listener other) {
    if (port == 0 || port != other.port) {
      return false;
    }
    InetAddress mine = address();
    InetAddress theirs = other.address();
    if (mine == null || theirs == null) {
      return host.equals(other.host);
    }
    return mine.equals(theirs) || covers(mine, theirs) || covers(theirs, mine);
  }

  /**
   * Whether a listener on {@code wildcard} takes {@code address}'s port as well: an IPv4 wildcard
   * ({@code 0.0.0.0}) every IPv4 address, an IPv6 one ({@code ::}, dual-stack) every address.
   */
  private static boolean covers(InetAddress wildcard, InetAddress address) {
    return wildcard.isAnyLocalAddress()
        && (wildcard instanceof Inet6Address || !(address instanceof Inet6Address));
  }

  /** The address binding would use, or null if {@link #host} does not resolve. */
  private @org.jspecify.annotations.Nullable InetAddress address() {
    try {
      return InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      return null;
    }
  }
}
