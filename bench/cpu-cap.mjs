// Caps a process at a share of one core with the kernel's CPU controller (a cgroup quota), for
// bench/scale-out.mjs --cpu-per-process: on a machine with fewer cores than server processes, the
// cap, not the machine, then limits each process, a stand-in for a machine with one slower core
// per process. A group also weighs more than the default against the machine's other work (the
// kernel shares out contended cores by weight), so that on a shared machine a capped process
// gets its share whenever it can run. cgroup v2 (`cpu.max`) where a cgroup2 hierarchy offers the cpu controller, else
// cgroup v1 (`cpu.cfs_quota_us`, with `cpuacct.usage` for the group's own CPU time when the
// cpuacct controller is mounted). Each capped process gets a group of its own, named after this
// bench process, and every group made is removed again: after its step, at exit, on SIGINT and
// SIGTERM, and (for a run that was killed) by the next run, when its bench process is gone.
// Writing a pid to a group's `cgroup.procs` moves every thread of that process, and what it
// starts later is born in the group.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';

/** The file operations the caps use, on the real cgroup file systems. */
const SYSTEM = {
  read: (file) => readFileSync(file, 'utf8'),
  write: (file, text) => writeFileSync(file, text),
  mkdir: (dir) => mkdirSync(dir),
  rmdir: (dir) => rmdirSync(dir),
  list: (dir) => readdirSync(dir),
  exists: (file) => existsSync(file),
  isAlive: (pid) => existsSync(`/proc/${pid}`),
  pause: (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms),
};

/** The kernel refuses a quota under 1 ms a period (cpu.max and cpu.cfs_quota_us alike). */
const MIN_QUOTA_US = 1_000;
const GROUP_PREFIX = 'taskdag-bench-';

/** The lines of /proc/self/mounts: mount point (its octal escapes undone), type, options. */
export function parseMounts(text) {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [, point, type, options] = line.split(' ');
      return { point: point.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8))), type, options: options.split(',') };
    });
}

/**
 * Where CPU caps can be written: a cgroup2 hierarchy mounted read-write whose root offers the
 * cpu controller, else the read-write cgroup v1 hierarchy with the cpu controller (and the one
 * with cpuacct, the same or another, for the group's CPU time). Throws, saying what it found,
 * when neither is there.
 */
export function cpuHierarchy(mounts, io = SYSTEM) {
  const writable = (mount) => mount.options.includes('rw');
  const v2 = mounts.find((mount) => mount.type === 'cgroup2' && writable(mount) && controllersOf(io, mount.point).includes('cpu'));
  if (v2) return { version: 2, cpu: v2.point, cpuacct: v2.point };
  const v1 = mounts.find((mount) => mount.type === 'cgroup' && writable(mount) && mount.options.includes('cpu'));
  if (v1) return { version: 1, cpu: v1.point, cpuacct: mounts.find((mount) => mount.type === 'cgroup' && mount.options.includes('cpuacct'))?.point ?? null };
  const seen = mounts.filter((mount) => mount.type === 'cgroup2' || mount.type === 'cgroup').map((mount) => `${mount.type} at ${mount.point} (${mount.options.join(',')}${mount.type === 'cgroup2' ? `; controllers: ${controllersOf(io, mount.point).join(' ') || 'none'}` : ''})`);
  throw new Error(
    `--cpu-per-process needs the kernel's CPU controller writable: a cgroup2 mount offering "cpu" in cgroup.controllers, or a read-write cgroup v1 mount with the cpu controller; found ${seen.length ? seen.join('; ') : 'no cgroup file system'}`,
  );
}

function controllersOf(io, root) {
  try {
    return io.read(`${root}/cgroup.controllers`).trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

/** A cpu.stat file as numbers by key (`usage_usec 123` a line). */
export function parseCpuStat(text) {
  return Object.fromEntries(
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [key, value] = line.split(/\s+/);
        return [key, Number(value)];
      }),
  );
}

/** The quota of `share` of a core over `periodUs`, refused when the kernel would refuse it. */
export function quotaOf(share, periodUs) {
  if (!(share > 0)) throw new Error(`--cpu-per-process: ${share} is not a share of a core above 0`);
  if (!Number.isInteger(periodUs) || periodUs < MIN_QUOTA_US || periodUs > 1_000_000) throw new Error(`--cpu-period-us: ${periodUs} is not a whole number of µs from 1,000 to 1,000,000`);
  const quotaUs = Math.round(share * periodUs);
  if (quotaUs < MIN_QUOTA_US) throw new Error(`--cpu-per-process ${share} is ${quotaUs} µs a ${periodUs} µs period: the kernel takes no quota under ${MIN_QUOTA_US} µs; raise the share or the period`);
  return quotaUs;
}

/** The groups a bench process made (`taskdag-bench-<pid>-<n>`) whose bench process is gone. */
export function staleGroups(names, isAlive) {
  return names.filter((name) => {
    const match = new RegExp(`^${GROUP_PREFIX}(\\d+)-\\d+$`).exec(name);
    return match !== null && !isAlive(Number(match[1]));
  });
}

/** The kernel's weight of a group given `times` the default (v1 cpu.shares 1024, v2 cpu.weight 100), within its bounds. */
export function weightOf(version, times) {
  if (!(times > 0)) throw new Error(`--cpu-weight: ${times} is not a multiple of the default weight above 0`);
  return version === 2 ? Math.min(10_000, Math.max(1, Math.round(100 * times))) : Math.min(262_144, Math.max(2, Math.round(1024 * times)));
}

/**
 * CPU groups over `periodUs` (the kernel's default 100 ms unless told), on the hierarchy
 * `cpuHierarchy` finds in `mountsText`. `confine(pids, { share, weight })` moves processes
 * (every thread) into a new group of their own, allowed `share` of a core (null: no quota) and
 * weighted `weight` times the default against the machine's other work when cores are short, and
 * answers the group; `usage(group)` its CPU time (µs, all its processes, by the group's own
 * accounting; null on v1 without cpuacct) and its throttling (periods, periods throttled, µs
 * throttled); `release(group)` moves what is left in it back to the hierarchy's root and removes
 * it; `releaseAll()` every group still there.
 */
export function openCpuCaps({ periodUs = 100_000, mountsText = readFileSync('/proc/self/mounts', 'utf8'), io = SYSTEM, owner = process.pid } = {}) {
  const hierarchy = cpuHierarchy(parseMounts(mountsText), io);
  const roots = [...new Set([hierarchy.cpu, hierarchy.cpuacct].filter(Boolean))];
  for (const root of roots) for (const name of staleGroups(io.list(root), io.isAlive)) removeGroup(io, root, name);
  if (hierarchy.version === 2 && !io.read(`${hierarchy.cpu}/cgroup.subtree_control`).split(/\s+/).includes('cpu')) {
    // Left on afterwards: turning it off would drop the cpu settings of groups others made meanwhile.
    attempt(() => io.write(`${hierarchy.cpu}/cgroup.subtree_control`, '+cpu'), `enable the cpu controller for groups under ${hierarchy.cpu}`);
  }
  const groups = new Set();
  let made = 0;
  const read = (file) => parseCpuStat(io.read(file));
  const release = (group) => {
    if (!groups.delete(group)) return;
    for (const root of roots) removeGroup(io, root, group.name);
  };
  return {
    version: hierarchy.version,
    confine(pids, { share = null, weight = 1 } = {}) {
      const quotaUs = share === null ? null : quotaOf(share, periodUs);
      const kernelWeight = weightOf(hierarchy.version, weight);
      const group = { name: `${GROUP_PREFIX}${owner}-${made++}` };
      groups.add(group);
      for (const root of roots) attempt(() => io.mkdir(`${root}/${group.name}`), `make the cgroup ${root}/${group.name}`);
      const dir = `${hierarchy.cpu}/${group.name}`;
      attempt(() => {
        if (hierarchy.version === 2) {
          io.write(`${dir}/cpu.weight`, String(kernelWeight));
          if (quotaUs !== null) io.write(`${dir}/cpu.max`, `${quotaUs} ${periodUs}`);
        } else {
          io.write(`${dir}/cpu.shares`, String(kernelWeight));
          io.write(`${dir}/cpu.cfs_period_us`, String(periodUs));
          if (quotaUs !== null) io.write(`${dir}/cpu.cfs_quota_us`, String(quotaUs));
        }
      }, `set the quota and weight of ${dir}`);
      for (const pid of pids) for (const root of roots) attempt(() => moveIn(io, `${root}/${group.name}`, pid), `move process ${pid} into ${root}/${group.name}`);
      return group;
    },
    usage(group) {
      const stat = read(`${hierarchy.cpu}/${group.name}/cpu.stat`);
      const cpuUs = hierarchy.version === 2 ? stat.usage_usec : hierarchy.cpuacct ? Number(io.read(`${hierarchy.cpuacct}/${group.name}/cpuacct.usage`)) / 1_000 : null;
      return { cpuUs, periods: stat.nr_periods, throttled: stat.nr_throttled, throttledUs: hierarchy.version === 2 ? stat.throttled_usec : stat.throttled_time / 1_000 };
    },
    release,
    releaseAll: () => [...groups].forEach(release),
  };
}

/** Moves process `pid` into the group at `dir`; one that has ended meanwhile (ESRCH) is no longer there to move. */
function moveIn(io, dir, pid) {
  try {
    io.write(`${dir}/cgroup.procs`, String(pid));
  } catch (error) {
    if (error.code !== 'ESRCH') throw error;
  }
}

/** How long a group may stay busy with a process that is still ending (killed just before), in tries 10 ms apart. */
const REMOVE_TRIES = 200;

/**
 * Moves the processes left in group `name` back to `root`, then removes the group. Synchronous, so
 * that an exit hook can run it: a process killed just before stays in its group until it has ended
 * (the kernel answers EBUSY), so it waits and tries again.
 */
function removeGroup(io, root, name) {
  const dir = `${root}/${name}`;
  if (!io.exists(dir)) return;
  for (let tries = 1; ; tries++) {
    for (const pid of io.read(`${dir}/cgroup.procs`).split('\n').filter(Boolean)) {
      try {
        io.write(`${root}/cgroup.procs`, pid);
      } catch {
        // Ending: it leaves the group as it ends.
      }
    }
    try {
      return io.rmdir(dir);
    } catch (error) {
      if (error.code !== 'EBUSY' || tries === REMOVE_TRIES) throw failure(error, `remove the cgroup ${dir}`);
    }
    io.pause(10);
  }
}

/** Runs `step`; a failure says what it was doing and what the kernel answered. */
function attempt(step, what) {
  try {
    step();
  } catch (error) {
    throw failure(error, what);
  }
}

function failure(error, what) {
  const hint = ['EACCES', 'EPERM', 'EROFS'].includes(error.code) ? ' (cgroups need root and a writable cgroup file system)' : '';
  return new Error(`--cpu-per-process: could not ${what}: ${error.code ?? error.message}${hint}`);
}
