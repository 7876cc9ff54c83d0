package org.meshjava.journal.postgres;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * A stand-in for a pooling proxy in transaction mode (PgBouncer's {@code pool_mode=transaction}):
 * one {@link Connection} in front of several sessions, each transaction (each statement, outside
 * one) run on the next of them once {@link #switching} is on. What the client sets on its
 * connection (auto-commit) is the client's and reaches every session; what a statement sets on the
 * server (a lock, a setting) stays with the session that ran it, as behind the real proxy.
 * Thread-safe: one call at a time.
 */
final class TransactionPool implements InvocationHandler {
  private final List<Connection> sessions;
  private int at;
  private boolean autoCommit = true;
  private volatile boolean switching;

  private TransactionPool(List<Connection> sessions) {
    this.sessions = List.copyOf(sessions);
  }

  /** The connection in front of {@code first} and a second session at {@code location}. */
  static TransactionPool over(Connection first, PostgresLocation location) throws SQLException {
    return new TransactionPool(List.of(first, location.connect()));
  }

  /** The client's connection. */
  Connection connection() {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, this);
  }

  /** From now on, hands each transaction to the next session (off: every one to the same). */
  TransactionPool switching(boolean on) {
    switching = on;
    return this;
  }

  @Override
  public synchronized Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
    try {
      switch (m.getName()) {
        case "setAutoCommit" -> {
          autoCommit = (Boolean) args[0];
          for (Connection s : sessions) {
            s.setAutoCommit(autoCommit);
          }
          return null;
        }
        case "getAutoCommit" -> {
          return autoCommit;
        }
        case "close" -> {
          for (Connection s : sessions) {
            s.close();
          }
          return null;
        }
        case "createStatement", "prepareStatement" -> {
          if (switching && autoCommit) {
            at = (at + 1) % sessions.size();
          }
        }
        default -> {}
      }
      return m.invoke(sessions.get(at), args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
