import { expect } from 'chai';
import path from 'node:path';

// The bench is plain JavaScript beside the sources; tests reach it through a dynamic import.
const CPU_CAP = path.resolve(__dirname, '../../../bench/cpu-cap.mjs');

/** An error as node:fs throws it, with the kernel's code. */
function kernelError(code: string): Error {
  return Object.assign(new Error(code), { code });
}

/**
 * cgroup file systems in memory, as the kernel keeps them: a group's directory comes with its
 * control files, writing a pid to a group's cgroup.procs moves it out of its other group of that
 * hierarchy, and a group with a process in it cannot be removed (EBUSY). A pid in `ending` stays
 * where it is for that many more moves (a process killed and still ending).
 */
class FakeCgroups {
  files = new Map<string, string>();
  dirs = new Set<string>();
  alive = new Set<number>();
  ending = new Map<number, number>();
  pauses = 0;

  constructor(
    private readonly roots: string[],
    private readonly version: 1 | 2,
  ) {
    for (const root of roots) this.makeGroup(root);
  }

  makeGroup(dir: string): void {
    this.dirs.add(dir);
    this.files.set(`${dir}/cgroup.procs`, '');
    this.files.set(`${dir}/cpu.stat`, this.version === 2 ? 'usage_usec 0\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n' : 'nr_periods 0\nnr_throttled 0\nthrottled_time 0\n');
    if (this.version === 1) this.files.set(`${dir}/cpuacct.usage`, '0');
  }

  procs(dir: string): string[] {
    return (this.files.get(`${dir}/cgroup.procs`) ?? '').split('\n').filter(Boolean);
  }

  rootOf(dir: string): string {
    return this.roots.find((root) => dir === root || dir.startsWith(`${root}/`)) as string;
  }

  io = {
    read: (file: string): string => {
      const text = this.files.get(file);
      if (text === undefined) throw kernelError('ENOENT');
      return text;
    },
    write: (file: string, text: string): void => {
      if (!file.endsWith('/cgroup.procs')) return void this.files.set(file, text);
      const dir = path.dirname(file);
      const pid = Number(text);
      const left = this.ending.get(pid);
      if (left !== undefined) {
        if (left > 0) return void this.ending.set(pid, left - 1);
        // Ended: it leaves every group without a move.
        this.ending.delete(pid);
        for (const group of this.dirs) this.files.set(`${group}/cgroup.procs`, this.procs(group).filter((entry) => entry !== text).join('\n'));
        throw kernelError('ESRCH');
      }
      if (!this.alive.has(pid)) throw kernelError('ESRCH');
      for (const group of this.dirs) if (this.rootOf(group) === this.rootOf(dir)) this.files.set(`${group}/cgroup.procs`, this.procs(group).filter((entry) => entry !== text).join('\n'));
      this.files.set(file, [...this.procs(dir), text].join('\n'));
    },
    mkdir: (dir: string): void => {
      if (this.dirs.has(dir)) throw kernelError('EEXIST');
      this.makeGroup(dir);
    },
    rmdir: (dir: string): void => {
      if (this.procs(dir).length > 0) throw kernelError('EBUSY');
      this.dirs.delete(dir);
      for (const file of [...this.files.keys()]) if (file.startsWith(`${dir}/`)) this.files.delete(file);
    },
    list: (dir: string): string[] => [...this.dirs].filter((entry) => path.dirname(entry) === dir).map((entry) => path.basename(entry)),
    exists: (file: string): boolean => this.dirs.has(file) || this.files.has(file),
    isAlive: (pid: number): boolean => this.alive.has(pid),
    pause: (): void => {
      this.pauses += 1;
    },
  };
}

const HYBRID_MOUNTS = [
  'tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0',
  'cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0',
  'cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0',
  'cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0',
  'cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0',
  '',
].join('\n');

describe('scale-out bench CPU caps (bench/cpu-cap.mjs)', () => {
  it('reads mount points with their escapes undone, and each mount type and option', async () => {
    const { parseMounts } = await import(CPU_CAP);
    expect(parseMounts('cgroup2 /sys/fs/my\\040cgroups cgroup2 rw,nosuid 0 0\n')).to.deep.equal([{ point: '/sys/fs/my cgroups', type: 'cgroup2', options: ['rw', 'nosuid'] }]);
  });

  it('takes cgroup v2 where its root offers the cpu controller, else v1 with cpuacct mounted apart, and names what it found when neither is writable', async () => {
    const { cpuHierarchy, parseMounts } = await import(CPU_CAP);
    const hybrid = new FakeCgroups(['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup/unified'], 1);
    hybrid.files.set('/sys/fs/cgroup/unified/cgroup.controllers', '\n');
    expect(cpuHierarchy(parseMounts(HYBRID_MOUNTS), hybrid.io)).to.deep.equal({ version: 1, cpu: '/sys/fs/cgroup/cpu', cpuacct: '/sys/fs/cgroup/cpuacct' });

    const unified = new FakeCgroups(['/sys/fs/cgroup'], 2);
    unified.files.set('/sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory pids\n');
    expect(cpuHierarchy(parseMounts('cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n'), unified.io)).to.deep.equal({ version: 2, cpu: '/sys/fs/cgroup', cpuacct: '/sys/fs/cgroup' });

    const readOnly = HYBRID_MOUNTS.replace('rw,relatime,cpu ', 'ro,relatime,cpu ');
    expect(() => cpuHierarchy(parseMounts(readOnly), hybrid.io)).to.throw(/found cgroup at \/sys\/fs\/cgroup\/cpu \(ro,relatime,cpu\);.*; cgroup2 at \/sys\/fs\/cgroup\/unified \(rw,relatime; controllers: none\)$/);
    expect(() => cpuHierarchy(parseMounts('proc /proc proc rw 0 0\n'), hybrid.io)).to.throw(/found no cgroup file system/);
  });

  it('refuses a share or period the kernel would refuse, before anything starts', async () => {
    const { quotaOf, weightOf } = await import(CPU_CAP);
    expect(quotaOf(0.25, 100_000)).to.equal(25_000);
    expect(quotaOf(1.5, 20_000)).to.equal(30_000);
    expect(() => quotaOf(0, 100_000)).to.throw(/not a share of a core above 0/);
    expect(() => quotaOf(Number.NaN, 100_000)).to.throw(/not a share of a core above 0/);
    expect(() => quotaOf(0.005, 100_000)).to.throw(/500 µs a 100000 µs period: the kernel takes no quota under 1000 µs/);
    expect(() => quotaOf(0.5, 500)).to.throw(/--cpu-period-us: 500/);
    expect(weightOf(1, 10)).to.equal(10_240);
    expect(weightOf(2, 10)).to.equal(1_000);
    expect(weightOf(2, 1_000)).to.equal(10_000);
    expect(() => weightOf(1, 0)).to.throw(/--cpu-weight/);
  });

  it('on cgroup v1, caps a process in cpu and counts it in cpuacct, then moves what is left back and removes both groups', async () => {
    const { openCpuCaps } = await import(CPU_CAP);
    const kernel = new FakeCgroups(['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup/unified'], 1);
    kernel.alive.add(300);
    const caps = openCpuCaps({ periodUs: 50_000, mountsText: HYBRID_MOUNTS, io: kernel.io, owner: 42 });
    const group = caps.confine([300], { share: 0.2, weight: 10 });
    expect(group.name).to.equal('taskdag-bench-42-0');
    expect(kernel.files.get('/sys/fs/cgroup/cpu/taskdag-bench-42-0/cpu.cfs_period_us')).to.equal('50000');
    expect(kernel.files.get('/sys/fs/cgroup/cpu/taskdag-bench-42-0/cpu.cfs_quota_us')).to.equal('10000');
    expect(kernel.files.get('/sys/fs/cgroup/cpu/taskdag-bench-42-0/cpu.shares')).to.equal('10240');
    expect(kernel.procs('/sys/fs/cgroup/cpu/taskdag-bench-42-0')).to.deep.equal(['300']);
    expect(kernel.procs('/sys/fs/cgroup/cpuacct/taskdag-bench-42-0')).to.deep.equal(['300']);

    kernel.files.set('/sys/fs/cgroup/cpuacct/taskdag-bench-42-0/cpuacct.usage', '7500000\n');
    kernel.files.set('/sys/fs/cgroup/cpu/taskdag-bench-42-0/cpu.stat', 'nr_periods 40\nnr_throttled 39\nthrottled_time 2000000000\n');
    expect(caps.usage(group)).to.deep.equal({ cpuUs: 7_500, periods: 40, throttled: 39, throttledUs: 2_000_000 });

    // Uncapped: a weight and no quota.
    const weighted = caps.confine([300], { weight: 2 });
    expect(kernel.files.has('/sys/fs/cgroup/cpu/taskdag-bench-42-1/cpu.cfs_quota_us')).to.equal(false);
    expect(kernel.files.get('/sys/fs/cgroup/cpu/taskdag-bench-42-1/cpu.shares')).to.equal('2048');
    expect(kernel.procs('/sys/fs/cgroup/cpu/taskdag-bench-42-0')).to.deep.equal([]);

    caps.release(group);
    expect(kernel.dirs.has('/sys/fs/cgroup/cpu/taskdag-bench-42-0')).to.equal(false);
    expect(kernel.dirs.has('/sys/fs/cgroup/cpuacct/taskdag-bench-42-0')).to.equal(false);
    caps.releaseAll();
    expect([...kernel.dirs].filter((dir) => dir.includes('taskdag-bench'))).to.deep.equal([]);
    expect(kernel.procs('/sys/fs/cgroup/cpu')).to.deep.equal(['300']);
    expect(kernel.procs('/sys/fs/cgroup/cpuacct')).to.deep.equal(['300']);
    expect(weighted.name).to.equal('taskdag-bench-42-1');
  });

  it('on cgroup v2, turns the cpu controller on for its groups when it is off, and caps with cpu.max', async () => {
    const { openCpuCaps } = await import(CPU_CAP);
    const kernel = new FakeCgroups(['/sys/fs/cgroup'], 2);
    kernel.files.set('/sys/fs/cgroup/cgroup.controllers', 'cpu memory\n');
    kernel.files.set('/sys/fs/cgroup/cgroup.subtree_control', 'memory\n');
    kernel.alive.add(7);
    const caps = openCpuCaps({ mountsText: 'cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n', io: kernel.io, owner: 42 });
    expect(kernel.files.get('/sys/fs/cgroup/cgroup.subtree_control')).to.equal('+cpu');
    const group = caps.confine([7], { share: 0.25, weight: 10 });
    expect(kernel.files.get('/sys/fs/cgroup/taskdag-bench-42-0/cpu.max')).to.equal('25000 100000');
    expect(kernel.files.get('/sys/fs/cgroup/taskdag-bench-42-0/cpu.weight')).to.equal('1000');
    kernel.files.set('/sys/fs/cgroup/taskdag-bench-42-0/cpu.stat', 'usage_usec 1234\nuser_usec 1000\nsystem_usec 234\nnr_periods 10\nnr_throttled 9\nthrottled_usec 450\n');
    expect(caps.usage(group)).to.deep.equal({ cpuUs: 1_234, periods: 10, throttled: 9, throttledUs: 450 });
    caps.releaseAll();
    expect(kernel.dirs.has('/sys/fs/cgroup/taskdag-bench-42-0')).to.equal(false);
  });

  it('removes the groups a killed earlier run left behind, and no group of a live run or of anyone else', async () => {
    const { openCpuCaps, staleGroups } = await import(CPU_CAP);
    expect(staleGroups(['taskdag-bench-5-0', 'taskdag-bench-6-3', 'taskdag-bench-x-1', 'system.slice'], (pid: number) => pid === 6)).to.deep.equal(['taskdag-bench-5-0']);
    const kernel = new FakeCgroups(['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup/unified'], 1);
    kernel.alive.add(6);
    for (const name of ['taskdag-bench-5-0', 'taskdag-bench-6-0', 'other']) kernel.makeGroup(`/sys/fs/cgroup/cpu/${name}`);
    openCpuCaps({ mountsText: HYBRID_MOUNTS, io: kernel.io, owner: 42 });
    expect(kernel.io.list('/sys/fs/cgroup/cpu').sort()).to.deep.equal(['other', 'taskdag-bench-6-0']);
  });

  it('waits for a process killed just before to leave its group, and says so when it never does', async () => {
    const { openCpuCaps } = await import(CPU_CAP);
    const kernel = new FakeCgroups(['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup/unified'], 1);
    kernel.alive.add(300);
    const caps = openCpuCaps({ mountsText: HYBRID_MOUNTS, io: kernel.io, owner: 42 });
    const group = caps.confine([300], { share: 0.2 });
    kernel.alive.delete(300);
    kernel.ending.set(300, 3);
    caps.release(group);
    expect(kernel.pauses).to.equal(3);
    expect(kernel.dirs.has('/sys/fs/cgroup/cpu/taskdag-bench-42-0')).to.equal(false);

    kernel.alive.add(301);
    const stuck = caps.confine([301], { share: 0.2 });
    kernel.ending.set(301, Number.POSITIVE_INFINITY);
    expect(() => caps.release(stuck)).to.throw(/could not remove the cgroup \/sys\/fs\/cgroup\/cpu\/taskdag-bench-42-1: EBUSY/);
  });

  it('passes over a process that ended before it was moved, and says what a refused group needs', async () => {
    const { openCpuCaps } = await import(CPU_CAP);
    const kernel = new FakeCgroups(['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup/unified'], 1);
    kernel.alive.add(1);
    const caps = openCpuCaps({ mountsText: HYBRID_MOUNTS, io: kernel.io, owner: 42 });
    caps.confine([1, 2], { weight: 10 });
    expect(kernel.procs('/sys/fs/cgroup/cpu/taskdag-bench-42-0')).to.deep.equal(['1']);
    kernel.io.mkdir = () => {
      throw kernelError('EACCES');
    };
    expect(() => caps.confine([1], { share: 0.2 })).to.throw(/could not make the cgroup \/sys\/fs\/cgroup\/cpu\/taskdag-bench-42-1: EACCES \(cgroups need root and a writable cgroup file system\)/);
    caps.releaseAll();
    expect([...kernel.dirs].filter((dir) => dir.includes('taskdag-bench'))).to.deep.equal([]);
  });
});
