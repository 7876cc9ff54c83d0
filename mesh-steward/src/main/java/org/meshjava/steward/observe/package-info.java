/**
 * The steward's observation hook: a small SPI the steward calls at each serve's phases and outcome,
 * on every debit and on every timed journal write, so that metrics and traces can be bound to a
 * steward without wrapping it from outside (the {@code mesh-metrics} module binds Micrometer).
 *
 * <p>A listener is registered with {@link
 * org.meshjava.steward.Steward.Builder#listener(StewardListener)}. With none registered the steward
 * makes no extra allocation and reads no clock for it. A listener that throws never breaks a serve:
 * the steward logs the failure and goes on as if the call had returned.
 */
package org.meshjava.steward.observe;
