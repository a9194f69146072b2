import { expect } from 'chai';
import { requireBoardBuild } from '../../../application/board/board-build.js';
import { boardPaths } from '../../../application/board/board-links.js';
import { rejectionOf } from '../../support/failures.js';
import { InMemoryHostFiles } from '../../support/in-memory-host-files.js';

describe('the board build and its addresses', () => {
  describe('requireBoardBuild', () => {
    const root = '/opt/taskdag/ui/dist';

    it('passes when index.html is built, whatever else is there', async () => {
      const files = new InMemoryHostFiles();
      await files.writeFile(`${root}/index.html`, '<!doctype html>', 0o644);
      await requireBoardBuild(files, root);
    });

    it('names the first thing missing, from the sub-project down to its build, and writes nothing', async () => {
      const files = new InMemoryHostFiles();
      const missing = async () => {
        const before = files.writes;
        const error = await rejectionOf(() => requireBoardBuild(files, root));
        expect(files.writes).to.equal(before);
        expect(error.code).to.equal('UI_UNAVAILABLE');
        expect(error.details.fix).to.equal('npm run build:ui');
        return error.details;
      };
      expect(await missing()).to.deep.include({ missing: 'sub-project', path: '/opt/taskdag/ui' });
      await files.writeFile('/opt/taskdag/ui/package.json', '{}', 0o644);
      expect(await missing()).to.deep.include({ missing: 'dependencies', path: '/opt/taskdag/ui' });
      await files.makeDirectory('/opt/taskdag/ui/node_modules', 0o755);
      expect(await missing()).to.deep.include({ missing: 'build', path: root });
    });
  });

  describe('boardPaths', () => {
    it('gives the catalog alone without a project', () => {
      expect(boardPaths(null, {})).to.deep.equal([{ view: 'catalog', path: '/' }]);
    });

    it("adds the project's views, then the initiative's and the node's, escaped", () => {
      expect(boardPaths('p.1', { initiative: 'a b', id: 'T:1' })).to.deep.equal([
        { view: 'catalog', path: '/' },
        { view: 'board', path: '/projects/p.1' },
        { view: 'gates', path: '/projects/p.1/gates' },
        { view: 'graph', path: '/projects/p.1/graph' },
        { view: 'activity', path: '/projects/p.1/activity' },
        { view: 'initiative', path: '/projects/p.1?initiative=a%20b' },
        { view: 'initiative-graph', path: '/projects/p.1/graph?initiative=a%20b' },
        { view: 'node', path: '/projects/p.1/nodes/T%3A1' },
        { view: 'node-graph', path: '/projects/p.1/graph?focus=T%3A1' },
      ]);
    });
  });
});
