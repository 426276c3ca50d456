import { GithubClient } from '../../src/adapters/codehost/github-client.js';
import { GithubPullRequests } from '../../src/adapters/codehost/github-pull-requests.js';
import { InMemoryPullRequests } from '../fakes/in-memory-pull-requests.js';
import { FAKE_GITHUB_TOKEN, startFakeGithub } from '../support/fake-github.js';
import { describePullRequestsContract } from './pull-requests.contract.js';

describePullRequestsContract('in-memory fake', async () => {
  const pullRequests = new InMemoryPullRequests();
  return { pullRequests, pulls: pullRequests.pulls, commitFiles: pullRequests.commitFiles, close: async () => undefined };
});

describePullRequestsContract('GitHub REST (loopback fake of the GitHub API)', async () => {
  const github = await startFakeGithub();
  return {
    pullRequests: new GithubPullRequests(new GithubClient({ token: FAKE_GITHUB_TOKEN, repo: 'acme/app', apiUrl: github.url }), 'acme/app'),
    pulls: github.pulls,
    commitFiles: github.commitFiles,
    close: () => github.close(),
  };
});
