package org.meshjava.cli;

import picocli.CommandLine;

/**
 * Reads a TCP port option ({@code --port}, {@code --console-port}): 0 to 65535, 0 letting the
 * system pick a free port. Checked when the options are read, so that a port out of range is a
 * usage error naming the option (exit 2), not a failure to bind after the steward has started, told
 * in Jetty's words.
 */
final class PortNumber implements CommandLine.ITypeConverter<Integer> {
  /** The largest TCP port. */
  static final int MAX = 65_535;

  @Override
  public Integer convert(String value) {
    int port;
    try {
      port = Integer.parseInt(value.strip());
    } catch (NumberFormatException e) {
      throw new CommandLine.TypeConversionException(
          "'"
              + value
              + "' is not a port: a whole number from 0 to "
              + MAX
              + " (0 picks a free one)");
    }
    if (port < 0 || port > MAX) {
      throw new CommandLine.TypeConversionException(
          port + " is not a port: a port is 0 to " + MAX + " (0 picks a free one)");
    }
    return port;
  }
}
