package org.meshjava.energy;

import java.util.Objects;

/**
 * One channel of an IOReport sample delta: what {@code IOReportChannelGetGroup}, {@code
 * IOReportChannelGetChannelName}, {@code IOReportChannelGetUnitLabel} and {@code
 * IOReportSimpleGetIntegerValue(item, 0)} return for it.
 *
 * @param group the channel group, {@code Energy Model} for energy
 * @param channel the channel name, such as {@code CPU Energy}
 * @param unit the unit label: {@code mJ}, {@code uJ} or {@code nJ}
 * @param value the energy over the sample interval, in {@code unit}
 */
record IoReportEntry(String group, String channel, String unit, long value) {
  IoReportEntry {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(unit, "unit");
  }
}
