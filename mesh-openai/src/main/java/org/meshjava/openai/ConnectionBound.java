package org.meshjava.openai;

import java.time.Duration;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The bound on the connections one listener holds: at the bound it accepts no more (new ones wait
 * in the kernel's accept queue) and gives every connection it holds a short idle timeout, so that
 * connections held open and silent give their places to the clients waiting; below it, the
 * listener's own idle timeout again. Jetty's {@link NetworkConnectionLimit}, with one gap closed:
 * Jetty shortens the timeouts while the connection that reaches the bound is being accepted, before
 * that connection exists, and then opens it with the listener's own idle timeout. Silent, that one
 * would hold its place for all of it, and with the other connections busy serving it would be the
 * only one that could give way. So each connection accepted while the bound is reached is given the
 * short timeout too.
 *
 * <p>Thread-safe.
 */
final class ConnectionBound extends NetworkConnectionLimit implements Connection.Listener {
  private final long limitedIdleMillis;
  private final Object lock = new Object();

  /** Whether the bound is reached; written by Jetty's {@link #limit} and {@link #unlimit}. */
  private boolean limiting;

  private ConnectionBound(ServerConnector listener, int max, Duration limitedIdle) {
    super(max, listener);
    this.limitedIdleMillis = limitedIdle.toMillis();
    setEndPointIdleTimeout(limitedIdleMillis);
  }

  /**
   * Bounds {@code listener} to {@code max} connections, its idle ones closed after {@code
   * limitedIdle} while it holds that many; started and stopped with {@code server}.
   */
  static void on(Server server, ServerConnector listener, int max, Duration limitedIdle) {
    ConnectionBound bound = new ConnectionBound(listener, max, limitedIdle);
    server.addBean(bound, true);
    listener.addEventListener(bound);
  }

  @Override
  protected void limit() {
    synchronized (lock) {
      limiting = true;
      super.limit();
    }
  }

  @Override
  protected void unlimit() {
    synchronized (lock) {
      limiting = false;
      super.unlimit();
    }
  }

  /**
   * The short idle timeout for a connection opened while the bound is reached. A connection is
   * opened after it is counted as accepted (Jetty opens it on its selector later), so this is the
   * first moment it can be given. Under the same lock as {@link #limit} and {@link #unlimit}: a
   * bound cleared meanwhile has restored every timeout, this one's included, and it is left so.
   */
  @Override
  public void onOpened(Connection connection) {
    synchronized (lock) {
      EndPoint e = connection.getEndPoint();
      if (limiting && e.getIdleTimeout() > limitedIdleMillis) {
        e.setIdleTimeout(limitedIdleMillis);
      }
    }
  }
}
