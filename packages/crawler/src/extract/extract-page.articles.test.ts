import { extractPage } from './extract-page';

/**
 * Articles the shape of real pages, reduced to what decided their fate: a story followed by teasers of other stories
 * (prose too, so neither paragraph scores nor link density tell them from the story), and a story whose answers wait
 * behind an accordion's buttons.
 */
const extract = (html: string) => extractPage(html, 'https://news.test/harbour');

const paragraph = (text: string) =>
  `<p>${text} ${'It goes on about the harbour, the ships, the town and the people who work there. '.repeat(3)}</p>`;

/**
 * A story of ten paragraphs with `missed` in the middle, in a block Readability passes over (its class, `supplemental`,
 * reads as an extra to it), and a byline Readability leaves out.
 */
const storyWithMissedBlock = (missed: string) => {
  const story = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((i) => paragraph(`Story paragraph ${i} tells of the storm.`));
  return (
    '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
    '<article><h1>Harbour reopens after storm</h1><div class="story">' +
    '<div class="byline-box">Reported for Example News by the harbour desk team</div>' +
    story.slice(0, 5).join('') +
    `<div class="supplemental">${missed}</div>` +
    story.slice(5).join('') +
    '</div></article></body>'
  );
};

describe('extractPage on a story followed by teasers of other stories', () => {
  it('takes the <article> holding the headline among several, as a blog template marks its teasers', () => {
    // A WordPress theme's "You may like" box: an <article> of <article>s, each a picture and a long excerpt.
    const teaser = (i: number) =>
      `<article class="postbox post-${i}"><a href="/story-${i}"><img src="/${i}.jpg" alt=""></a>` +
      paragraph(`Teaser ${i} tells, at length, of another day, another town, another ship.`) +
      '</article>';
    const html =
      '<head><title>Harbour reopens after storm – Example News</title></head><body>' +
      '<div id="primary"><article class="articlebox post-1"><h1>Harbour reopens after storm</h1>' +
      paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
      '<p><a href="/harbours">Harbours</a>, <a href="/storms">Storms</a></p></article>' +
      `<article class="postbox post-1"><h3>You may like...</h3>${[2, 3, 4, 5].map(teaser).join('')}</article>` +
      '</div></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('# Harbour reopens after storm');
    expect(markdown).toContain('The harbour of Portville reopened on Wednesday');
    expect(markdown).not.toContain('Teaser 3 tells');
    expect(markdown).not.toContain('You may like');
  });

  it('does not widen the story to a rail of teaser cards, each a linked heading over an excerpt', () => {
    // A magazine's "Read this next": blocks of one kind, each headed by a link to another story, after the story.
    const card = (i: number) =>
      `<div class="post-item row"><div class="tagline">Daily · Dec ${i}, 2025</div>` +
      `<h3 class="title"><a href="/story-${i}">Another story, number ${i}</a></h3>` +
      paragraph(`Card ${i} says, in a long excerpt, what the other story tells.`) +
      '</div>';
    const html =
      '<head><title>Harbour reopens after storm</title></head><body><div id="content"><div class="hero">' +
      '<h1>Harbour reopens after storm</h1></div><div class="wrapper"><div class="share">Share</div><div class="story">' +
      paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
      paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
      paragraph('Repairs to the quay will take until spring, the port authority said.') +
      paragraph('The ferry company expects to raise its sunken ship within a month, and to run a smaller boat.') +
      `</div></div><div class="posts"><div class="post-list">${[1, 2, 3].map(card).join('')}</div>` +
      `<div class="post-list">${[4, 5, 6].map(card).join('')}</div></div></div></body>`;
    const { markdown } = extract(html);
    expect(markdown).toContain('# Harbour reopens after storm');
    expect(markdown).toContain('the first ship entered at dawn');
    expect(markdown).not.toContain('Card 2 says');
    expect(markdown).not.toContain('Another story, number 5');
  });

  it('drops a rail of teaser cards inside the story, with its heading', () => {
    // A page builder's "Refresh your skills" box among the story's sections: a list of cards, each a linked title.
    const card = (i: number) =>
      `<li class="card"><p class="taxonomy">Training</p><h2><a href="/course-${i}">Course number ${i}</a></h2>` +
      `<p>Course ${i} teaches what a course teaches, online.</p></li>`;
    const html =
      '<head><title>Harbour reopens after storm</title></head><body><article><h1>Harbour reopens after storm</h1>' +
      '<div class="share"><a href="https://social.test/share">Share</a></div><div class="post-body">' +
      paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
      `<div class="cards-container"><h2>Refresh your skills</h2><ul class="cards">${[1, 2, 3].map(card).join('')}</ul></div>` +
      paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
      '</div></article></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('the first ship entered at dawn');
    expect(markdown).not.toContain('Course 2 teaches');
    expect(markdown).not.toContain('Refresh your skills');
  });

  it("drops a news rail of short cards among the story's paragraphs, whose headings are no links, with its title", () => {
    // A tabloid's "Most read": each card a kicker, a line and an empty link laid over its picture.
    const card = (i: number) =>
      `<div class="rail__item"><div class="image"><a href="/news/${i}"><img src="/${i}.jpg" alt=""></a></div>` +
      `<div class="content"><h3>KICKER ${i}</h3><span>The line that sells story ${i} to a reader</span></div>` +
      `<a href="/news/${i}" class="anchor"></a></div>`;
    const html =
      '<head><title>Harbour reopens after storm</title></head><body><article><h1>Harbour reopens after storm</h1>' +
      '<div class="share"><a href="https://social.test/share">Share</a></div><div class="post-body">' +
      paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
      '<div class="rail"><div class="rail__header"><h3>Most read in world news</h3></div>' +
      `<div class="rail__items">${[1, 2, 3, 4].map(card).join('')}</div></div>` +
      paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
      '</div></article></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('the first ship entered at dawn');
    expect(markdown).not.toContain('sells story 2');
    expect(markdown).not.toContain('KICKER 3');
    expect(markdown).not.toContain('Most read');
  });

  it('keeps a listing of teaser cards, whose cards are its content', () => {
    const card = (i: number) =>
      `<div class="post-item"><h3><a href="/story-${i}">Story number ${i}</a></h3>` +
      paragraph(`Card ${i} says, in a long excerpt, what the story tells.`) +
      '</div>';
    const html =
      '<head><title>Harbour news</title></head><body><div id="content"><h1>Harbour news</h1>' +
      `<div class="post-list">${[1, 2, 3, 4].map(card).join('')}</div></div></body>`;
    const { markdown } = extract(html);
    for (const i of [1, 2, 3, 4]) expect(markdown).toContain(`Card ${i} says`);
  });

  it('keeps every article of a page whose headline none of them holds (a listing)', () => {
    const post = (i: number) => `<article><h2>Post ${i}</h2>${paragraph(`Post ${i} says what it says.`)}</article>`;
    const html =
      '<head><title>Harbour news – Example News</title></head><body><main><h1>Harbour news</h1>' +
      [1, 2, 3].map(post).join('') +
      '</main></body>';
    const { markdown } = extract(html);
    for (const i of [1, 2, 3]) expect(markdown).toContain(`Post ${i} says what it says.`);
  });
});

describe("extractPage on an article's accordions", () => {
  it("keeps an accordion's answers that Readability's reading leaves out, and drops a byline it leaves out", () => {
    // A buyer's guide: each product's pricing behind a heading's button, in a panel whose class says it starts
    // closed (Kadence's), which Readability's cleaning takes for chrome.
    const pane = (question: string, answers: string[]) =>
      `<h3 class="accordion-header"><button type="button">${question}</button></h3>` +
      `<div class="accordion-panel accordion-panel-hidden"><ul>${answers.map((answer) => `<li>${answer}</li>`).join('')}</ul></div>`;
    const html =
      '<head><title>Harbour ferries compared</title><meta property="og:type" content="article"></head><body>' +
      '<main><article><h1>Harbour ferries compared</h1><div class="entry">' +
      '<div class="byline">By Jane Writer, staff reporter</div>' +
      paragraph('Three companies run ferries from Portville, and each sells its tickets its own way.') +
      paragraph('We rode each of them twice, once on a calm day, once in a storm, and compared them.') +
      paragraph('The big company is the fastest, the small one the friendliest, the new one the cheapest.') +
      '<div class="pricing">' +
      pane('Big company pricing', ['Single crossing: $12 a person', 'Return: $20 within a week']) +
      pane('New company pricing', ['Single crossing: $8 a person', 'Car: $30 more each way']) +
      '</div></div></article></main></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('We rode each of them twice');
    expect(markdown).toContain('Single crossing: $12 a person');
    expect(markdown).toContain('Car: $30 more each way');
    expect(markdown).not.toContain('Jane Writer');
  });

  it('keeps a quoted post that Readability leaves out', () => {
    // An embedded post, as its script's placeholder is served (the post's text, its author and a dated link), in a
    // wrapper whose name Readability takes for a share bar.
    const post = (text: string, author: string) =>
      '<div class="social-media-embed"><blockquote class="twitter-tweet">' +
      `<p lang="en">${text} <a href="https://t.co/abc">https://t.co/abc</a></p>— ${author} ` +
      `(@${author.split(' ')[0]}) <a href="https://twitter.com/status/1">November 18, 2019</a></blockquote></div>`;
    const html =
      '<head><title>State spends on campaign</title><meta property="og:type" content="article"></head><body>' +
      '<main><article><h1>State spends on campaign</h1><div class="entry">' +
      paragraph('The state spent nearly half a million dollars on its new campaign, officials said.') +
      post(
        'Yes this is real and yes the state spent nearly half a million on it, on an ad that tells the whole ' +
          'country, in big white letters on a black page, that every one of us is on it, which is not what they meant',
        'Dianna Writer',
      ) +
      paragraph('Readers online were quick to joke about the slogan, and the state defended it.') +
      post(
        'I cannot believe what I just saw on my morning drive: a billboard, as tall as a house, on the road into ' +
          'town, saying it, with the state seal in the corner, and a phone number to call if you are on it too',
        'Mike Reader',
      ) +
      paragraph('The campaign will run through the spring, the health department said on Monday.') +
      '</div></article></main></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('the state spent nearly half a million on it');
    expect(markdown).toContain('I cannot believe what I just saw');
  });

  it('keeps a short quoted post whose wrapper is named for social media: a quotation is no widget', () => {
    const html =
      '<head><title>State spends on campaign</title><meta property="og:type" content="article"></head><body>' +
      '<main><article><h1>State spends on campaign</h1><div class="entry">' +
      paragraph('The state spent nearly half a million dollars on its new campaign, officials said.') +
      '<div class="social-media-embed"><blockquote class="twitter-tweet"><p lang="en">Yes this is real and yes ' +
      'the state spent half a million on it</p>— Dianna (@dianna) <a href="https://twitter.com/status/1">' +
      'November 18, 2019</a></blockquote><script async src="https://platform.twitter.com/widgets.js"></script></div>' +
      paragraph('Readers online were quick to joke about the slogan, and the state defended it.') +
      '<div class="social-share"><a href="https://social.test/share">Share</a> <a href="mailto:">Email</a></div>' +
      '</div></article></main></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('yes the state spent half a million on it');
    expect(markdown).not.toContain('Email');
  });
});

describe("extractPage on an article's datelines", () => {
  const page = (head: string) =>
    `<head><title>Harbour reopens after storm</title>${head}</head><body><main><article>` +
    '<h1>Harbour reopens after storm</h1><div class="meta"><span>Updated Nov 19, 6:55 AM; Posted Nov 19, 6:51 AM</span>' +
    '</div><div class="entry"><p class="date">PUBLISHED: 10:48, Tue, Nov 19, 2019 | UPDATED: 11:05, Tue, Nov 19, 2019</p>' +
    paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
    '<p>Updated at 5 pm with the mayor’s statement.</p>' +
    paragraph('The report was updated on Nov 19, 2019, after the port authority counted the damage.') +
    '</div></article></main></body>';

  it('drops a line of nothing but when the story was published or updated', () => {
    const { markdown } = extract(page('<meta property="og:type" content="article">'));
    expect(markdown).not.toContain('Posted Nov 19');
    expect(markdown).not.toContain('PUBLISHED');
    expect(markdown).toContain('The report was updated on Nov 19, 2019');
    expect(markdown).toContain('with the mayor’s statement');
  });

  it('keeps such a line on a page that does not say it is an article', () => {
    expect(extract(page('')).markdown).toContain('Posted Nov 19');
  });
});

describe("extractPage on an article's widgets that repeat their own lines", () => {
  const story = (inside: string) =>
    '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
    '<article><h1>Harbour reopens after storm</h1><div class="article-body">' +
    inside +
    paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
    paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
    paragraph('Repairs to the quay will take until spring, the port authority said.') +
    '</div></article></body>';

  it('drops a slideshow that says each caption and credit in its slide and again in its caption panel', () => {
    // A newspaper's gallery over the story: a slide (picture, caption, credit), arrows, and a panel repeating them.
    const caption = 'In this photograph, the first ship enters the harbour of Portville at dawn on Wednesday.';
    const credit = 'Photo: Jane Photographer, Example News';
    const html = story(
      '<div class="gallery"><div class="wedge"><div class="nav left"><a href="#"></a></div>' +
        `<ul class="slides"><li class="slide"><img src="/1.jpg" alt=""><div class="caption"><p>${caption}</p>` +
        `<span class="credit">${credit}</span></div></li></ul></div>` +
        `<div class="panel"><div class="bar"><span class="credit">${credit}</span> Image 1 of 9 ` +
        `<p>Caption</p><p>Close</p></div><div class="caption">Image 1 of 9 <p>${caption}</p>` +
        `<span class="credit">${credit}</span></div></div></div>`,
    );
    const { markdown } = extract(html);
    expect(markdown).toContain('# Harbour reopens after storm');
    expect(markdown).toContain('the first ship entered at dawn');
    expect(markdown).not.toContain('Jane Photographer');
    expect(markdown).not.toContain('In this photograph');
    expect(markdown).not.toContain('Image 1 of 9');
  });

  it('keeps the first copy of a section rendered twice, and values repeated across a table row', () => {
    // Questions and answers written once for wide screens and once for narrow ones; a comparison row of cells.
    const faq = (tag: string) =>
      ['Is the harbour open to yachts again?', 'Does the ferry run on Sundays this winter?']
        .map((question, i) => `<${tag}>${question}</${tag}><p>Answer ${i}: yes, from the first of the month on.</p>`)
        .join('');
    const cell = (text: string) => `<div class="column"><p>${text}</p></div>`;
    const html = story(
      `<div class="questions"><h2>Questions</h2><div class="wide">${faq('h5')}</div>` +
        `<div class="narrow">${faq('h6')}</div></div>` +
        `<div class="row">${cell('Ferry fares')}${cell('Two dollars for each passenger')}` +
        `${cell('Two dollars for each passenger')}</div>`,
    );
    const { markdown } = extract(html);
    expect(markdown.match(/Does the ferry run on Sundays/g)).toHaveLength(1);
    expect(markdown.match(/Answer 1: yes/g)).toHaveLength(1);
    expect(markdown.match(/Two dollars for each passenger/g)).toHaveLength(2);
  });
});

describe("extractPage on an article's picture credits", () => {
  const page = (head: string) =>
    `<head><title>Harbour reopens after storm</title>${head}</head><body><main><article>` +
    '<h1>Harbour reopens after storm</h1><div class="entry">' +
    '<div class="photo"><img src="/ship.jpg" alt=""><p class="legend">' +
    '<span>The first ship enters the harbour.</span> <span>(Image: © Jane Photographer/Example News)</span></p></div>' +
    paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
    '<div class="image"><img src="/quay.jpg" alt=""><div>Alex Wong | Getty Images</div></div>' +
    paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
    '<p><img src="/ferry.jpg" alt=""></p><p>Photo credit: ferries.example.com</p>' +
    paragraph('Photographs of the storm were shown at the town hall, and the mayor thanked the divers.') +
    '</div></article></main></body>';

  it('drops a line of nothing but who took or owns a picture, and keeps the caption around it', () => {
    const { markdown } = extract(page('<meta property="og:type" content="article">'));
    expect(markdown).toContain('The first ship enters the harbour.');
    expect(markdown).not.toContain('Jane Photographer');
    expect(markdown).not.toContain('Getty Images');
    expect(markdown).not.toContain('Photo credit');
    expect(markdown).toContain('Photographs of the storm were shown');
  });

  it('keeps such a line on a page that does not say it is an article', () => {
    expect(extract(page('')).markdown).toContain('Getty Images');
  });
});

describe('extractPage on a post a page builder splits over rows of one kind', () => {
  it("keeps the rows before the longest that hold the story's prose, and leaves out a row of links", () => {
    // A page builder's rows, one class each numbered apart, under no headline: quick links, then the post's sections.
    const row = (i: number, inside: string) => `<div id="pg-${i}" class="panel-grid panel-row-${i}">${inside}</div>`;
    const links = ['Why does the harbour close?', 'When does it open?', 'Who pays for repairs?']
      .map((text, i) => `<li><a href="#q${i}">${text}</a></li>`)
      .join('');
    const html =
      '<head><title>Harbour closures explained</title></head><body><div class="entry-content">' +
      '<div class="panel-layout">' +
      row(1, `<h4>Quick links</h4><ul>${links}</ul>`) +
      row(2, '<h3>Why does the harbour close?</h3>' + paragraph('The harbour closes when a storm is forecast.')) +
      row(3, '<h3>When does it open again?</h3>' + paragraph('It opens when the divers have cleared the channel.')) +
      row(
        4,
        '<h3>Who pays for repairs?</h3>' +
          [1, 2, 3, 4, 5, 6, 7, 8]
            .map((i) => paragraph(`Repairs, part ${i}, are paid by the port, the town and the state.`))
            .join(''),
      ) +
      '</div></div></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('Repairs, part 8');
    expect(markdown).toContain('The harbour closes when a storm is forecast.');
    expect(markdown).toContain('It opens when the divers have cleared the channel.');
    expect(markdown).not.toContain('Quick links');
  });

  it('keeps a part in an earlier container of its own, as Elementor wraps each text widget, and its paragraphs', () => {
    // Elementor: each container a box holding a text widget; the post's opening in the first, its longest part in the
    // second, beside a heading widget. A page that says it is an article, whose opening Readability's reading leaves out.
    const container = (id: string, inside: string, after = '') =>
      `<div class="elementor-element elementor-element-${id} e-con-boxed e-con e-parent"><div class="e-con-inner">` +
      `<div class="elementor-element elementor-element-w${id} elementor-widget elementor-widget-text-editor">` +
      `<div class="elementor-widget-container">${inside}</div></div>${after}</div></div>`;
    const questions =
      '<div class="elementor-element elementor-widget elementor-widget-heading"><h2>Questions</h2></div>';
    const opening = [1, 2, 3, 4, 5, 6]
      .map(
        (i) =>
          `<h3>Opening section ${i}</h3><p>Opening paragraph ${i} tells why the harbour matters to the town, its ships and its people.</p>`,
      )
      .join('');
    const longest = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
      .map((i) =>
        paragraph(`Longest part, paragraph ${i}, says how the harbour was rebuilt, stone by stone, over years.`),
      )
      .join('');
    const html =
      '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
      '<div class="site-header"><a href="/">Example News</a></div><div class="hero"><h1>Harbour reopens after storm</h1>' +
      '</div><article class="post">' +
      `<div class="elementor elementor-15342">${container('98fbbca', opening)}${container('fb50472', longest, questions)}</div>` +
      '</article><div class="related"><a href="/other">Another story</a></div></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('Longest part, paragraph 12');
    expect(markdown).toContain('Opening paragraph 1 tells why the harbour matters');
    expect(markdown).toContain('Opening paragraph 6 tells why the harbour matters');
  });

  it('keeps a section of five paragraphs or more that Readability misses, and drops a byline it misses', () => {
    const section = [1, 2, 3, 4, 5]
      .map((i) => `<p>Section paragraph ${i} says what the divers found on the floor of the channel, day by day.</p>`)
      .join('');
    const { markdown } = extract(storyWithMissedBlock(`<h2>What the divers found</h2>${section}`));
    expect(markdown).toContain('Story paragraph 10');
    expect(markdown).toContain('Section paragraph 1 says');
    expect(markdown).toContain('Section paragraph 5 says');
    expect(markdown).not.toContain('harbour desk team');
  });
});

describe('extractPage on a story split over blocks of one kind', () => {
  const group = (i: number, paragraphs: number) =>
    `<div class="article-group group-${i}"><div class="inner">` +
    Array.from({ length: paragraphs }, (_, p) =>
      paragraph(`Part ${i}, paragraph ${p + 1}, tells what the fasting study found.`),
    ).join('') +
    '</div></div><div class="ad-slot"></div>';
  const page = (groups: string) =>
    '<head><title>What fasting does</title><meta property="og:type" content="article"></head><body>' +
    `<main><h1>What fasting does</h1><div class="article-body">${groups}</div></main>` +
    '<footer><a href="/about">About</a></footer></body>';

  it('keeps the parts after the longest when parts come before it too', () => {
    const { markdown } = extract(page(group(1, 2) + group(2, 2) + group(3, 14) + group(4, 2) + group(5, 2)));
    expect(markdown).toContain('Part 1, paragraph 1');
    expect(markdown).toContain('Part 3, paragraph 14');
    expect(markdown).toContain('Part 5, paragraph 2');
  });

  it('leaves out a part after the longest when none comes before it (an "About us" of the same kind)', () => {
    const about =
      '<div class="article-group group-9"><div class="inner"><p>About Example Labs: Example Labs makes scales, ' +
      'clocks and thermometers for kitchens and laboratories in forty countries since 1950.</p></div></div>';
    const { markdown } = extract(page(group(1, 10) + about));
    expect(markdown).toContain('Part 1, paragraph 10');
    expect(markdown).not.toContain('About Example Labs');
  });
});

describe("extractPage on an article's pointers to other stories", () => {
  it('drops a paragraph that is one link in capitals, or a label in capitals and a link, and keeps other lone links', () => {
    const html =
      '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
      '<main><article><h1>Harbour reopens after storm</h1>' +
      paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
      '<p><strong><a href="/app">GET EXAMPLE NEWS ON THE GO BY CLICKING HERE</a></strong></p>' +
      paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
      '<p><strong>SEE MORE:</strong> <a href="/ferries">Ferry crossings cut to four a day</a></p>' +
      paragraph('Repairs to the quay will take until spring, the port authority said.') +
      '<p><a href="/tides">The tide tables for the week</a></p>' +
      '</article></main></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('Repairs to the quay will take until spring');
    expect(markdown).not.toContain('BY CLICKING HERE');
    expect(markdown).not.toContain('Ferry crossings cut');
    expect(markdown).toContain('The tide tables for the week');
  });
});

describe('extractPage on a list of points Readability misses', () => {
  it('keeps a list of sentences Readability misses, and drops a byline it misses', () => {
    const points = [1, 2, 3]
      .map((i) => `<li>Point ${i}: the ferry runs four crossings a day until the sunken ship is raised.</li>`)
      .join('');
    const { markdown } = extract(storyWithMissedBlock(`<ul>${points}</ul>`));
    expect(markdown).toContain('Story paragraph 10');
    expect(markdown).toContain('Point 1: the ferry runs');
    expect(markdown).toContain('Point 3: the ferry runs');
    expect(markdown).not.toContain('harbour desk team');
  });
});

describe('extractPage on a ranking Readability misses', () => {
  it("keeps a ranking's entries Readability misses, each a short description and a list of figures", () => {
    // Readability passes over the ranking's block (`supplemental`): forty short blocks, more than bylines and labels.
    const story = [1, 2, 3, 4, 5, 6].map((i) => paragraph(`Story paragraph ${i} tells how the ports were ranked.`));
    const entry = (i: number) =>
      `<h3>${i}. Port number ${i}</h3><p>Port ${i} handles grain and timber for the region.</p>` +
      `<ul><li>Berths: ${i + 10}</li><li>Cranes: ${i + 3}</li><li>Ships a year: ${i * 900}</li></ul>`;
    const html =
      '<head><title>The best harbours of the coast</title><meta property="og:type" content="article"></head><body>' +
      '<article><h1>The best harbours of the coast</h1><div class="story">' +
      story.join('') +
      `<div class="supplemental">${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(entry).join('')}</div>` +
      '</div></article></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('Story paragraph 6');
    expect(markdown).toContain('Port 1 handles grain');
    expect(markdown).toContain('Port 10 handles grain');
    expect(markdown).toContain('Ships a year: 9000');
  });
});

describe("extractPage on an article's author box", () => {
  const page = (after: string) =>
    '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
    '<main><article><h1>Harbour reopens after storm</h1><div class="entry">' +
    paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
    paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
    paragraph('Repairs to the quay will take until spring, the port authority said.') +
    after +
    '</div></article></main></body>';

  it('drops the box of a name over a paragraph that begins with it, beside a portrait and a title', () => {
    // A magazine's box under the story: portrait, linked name, title, and the writer's biography.
    const html = page(
      '<div class="author"><span><img src="/jane.jpg" alt=""></span><div><span><a href="/author/jane">Jane Writer</a>' +
        '</span><div>Contributing Writer</div></div><div><p>Jane Writer is a freelance writer living by the sea. ' +
        'She has covered harbours, ferries and storms for ten years, for papers and magazines alike.</p></div></div>',
    );
    const { markdown } = extract(html);
    expect(markdown).toContain('Repairs to the quay will take until spring');
    expect(markdown).not.toContain('Jane Writer');
    expect(markdown).not.toContain('Contributing Writer');
  });

  it('keeps profiles, each a name over a paragraph that begins with it', () => {
    const profile = (name: string) =>
      `<div class="profile"><p><strong>${name}</strong></p><p>${name} is a diver who cleared the channel ` +
      'over the weekend, working through the nights.</p></div>';
    const { markdown } = extract(page(profile('Jane Diver') + profile('John Diver')));
    expect(markdown).toContain('Jane Diver is a diver');
    expect(markdown).toContain('John Diver is a diver');
  });
});

describe("extractPage on links to other stories among an article's paragraphs", () => {
  const page = (inside: string) =>
    '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
    '<main><article><h1>Harbour reopens after storm</h1><div class="entry">' +
    paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
    inside +
    paragraph('Repairs to the quay will take until spring, the port authority said.') +
    '</div></article></main></body>';

  it("drops a name's pop-up card of links to other stories, and keeps the sentence around it", () => {
    // A politics site's card behind each name: the name again, the person's latest stories, "MORE".
    const card =
      '<span class="card"><span><a href="/people/jane-mayor">Jane Mayor</a>' +
      '<a href="/story-1">Mayor promises new quay before the summer season</a>' +
      '<a href="/story-2">Town council votes on the harbour budget for next year</a>' +
      '<a href="/story-3">Ferry strike ends after three weeks of talks in the town hall</a>' +
      '<a href="/people/jane-mayor">MORE</a></span></span>';
    const html = page(
      `<p>The mayor, <span><a href="/people/jane-mayor">Jane Mayor</a>${card}</span>, thanked the divers who ` +
        'cleared the channel over the weekend, and promised them a dinner.</p>',
    );
    const { markdown } = extract(html);
    expect(markdown).toContain('The mayor, [Jane Mayor](https://news.test/people/jane-mayor), thanked the divers');
    expect(markdown).not.toContain('Town council votes');
  });

  it("drops a paragraph of nothing but links to other stories, and keeps a sentence's links", () => {
    const html = page(
      '<p><strong>DON’T MISS</strong> <a href="/story-1">Storm warning for the whole coast</a> ' +
        '<a href="/story-2">Ferry company raises its prices again</a> [INSIGHT] ' +
        '<a href="/story-3">Fishermen count their losses after the storm</a></p>' +
        '<p>The <a href="/port">port authority</a> and the <a href="/town">town</a> will share the cost.</p>',
    );
    const { markdown } = extract(html);
    expect(markdown).not.toContain('Ferry company raises its prices');
    expect(markdown).toContain('will share the cost');
  });
});

describe("extractPage on an article's standfirst", () => {
  const page = (subheading: string) =>
    '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
    `<main><article><div class="headline"><h1>Harbour reopens after storm</h1>${subheading}</div><div class="entry">` +
    paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
    paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
    '</div></article></main></body>';

  it('drops a heading under the headline that sums the story up in a sentence', () => {
    const { markdown } = extract(
      page('<h2>The port lost three days of trade, and repairs will take until spring.</h2>'),
    );
    expect(markdown).toContain('# Harbour reopens after storm');
    expect(markdown).not.toContain('The port lost three days of trade');
    expect(markdown).toContain('the first ship entered at dawn');
  });

  it('keeps a heading under the headline that names or asks, as a section does', () => {
    const question = extract(page('<h2>Why does the harbour close every winter when the storms come?</h2>'));
    expect(question.markdown).toContain('Why does the harbour close every winter');
  });
});

describe('extractPage on a sign-up box inside an article', () => {
  const page = (box: string) =>
    '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
    '<article><h1>Harbour reopens after storm</h1>' +
    paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
    box +
    paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
    '</article></body>';

  it('drops the box around an email field, its invitation, small print and thanks with it', () => {
    const box =
      '<div class="x7f2"><div><p>Been there, done that? Think again.</p>' +
      '<label>Sign up to our letter to enjoy the harbour without spending a thing.</label></div>' +
      '<form><input type="email" placeholder="Enter email address"><input type="submit" value="Subscribe"></form>' +
      '<div><p>By entering your email address you agree to our <a href="/terms">Terms of Use</a>.</p></div>' +
      "<div><p>Awesome, you're subscribed!</p></div></div>";
    const { markdown } = extract(page(box));
    expect(markdown).toContain('the first ship entered at dawn');
    expect(markdown).not.toContain('Sign up to our letter');
    expect(markdown).not.toContain('By entering your email address');
    expect(markdown).not.toContain("you're subscribed");
  });
});

describe('extractPage on labels an article repeats between its paragraphs', () => {
  it('drops a short line said alone three times, and keeps labels over lists and ratings', () => {
    // An ad slot: its label beside an empty paragraph and the slot a script fills.
    const slot =
      '<aside class="unit-x1"><div class="unit-x1__inner"><span>Advertisement</span><p></p>' +
      '<div class="unit-x1__slot"><div id="slot"></div></div></div></aside>';
    const pros = (i: number) => `<div class="box"><p>Pros</p><ul><li>Point ${i} for the ferry</li></ul></div>`;
    const rating = '<div class="score"><p>5/5</p></div>';
    const html =
      '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
      '<article><h1>Harbour reopens after storm</h1>' +
      [1, 2, 3]
        .map((i) => paragraph(`Paragraph ${i} of the story tells of the storm.`) + slot + pros(i) + rating)
        .join('') +
      '</article></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('Paragraph 3 of the story');
    expect(markdown).not.toContain('Advertisement');
    expect(markdown.match(/Pros/g)).toHaveLength(3);
    expect(markdown.match(/5\/5/g)).toHaveLength(3);
  });
});

describe("extractPage on an article's figures", () => {
  it('drops a figure of a picture and its caption, and keeps a figure holding text of its own', () => {
    const html =
      '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
      '<article><h1>Harbour reopens after storm</h1>' +
      paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
      '<figure class="lead"><div class="frame"><img src="/quay.jpg" alt=""><div class="count">6</div></div>' +
      '<figcaption>Divers at work on the quay on Tuesday. <span>(Photo: J. Doe)</span></figcaption></figure>' +
      paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
      '<figure><blockquote><p>We never saw a storm like it in forty years at sea.</p></blockquote>' +
      '<figcaption>A ferry captain</figcaption></figure>' +
      '</article></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('the first ship entered at dawn');
    expect(markdown).not.toContain('Divers at work on the quay');
    expect(markdown).toContain('We never saw a storm like it');
    expect(markdown).toContain('A ferry captain');
  });

  it("drops WordPress's older caption markup, a picture and its caption in a wp-caption block", () => {
    const html =
      '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
      '<article><h1>Harbour reopens after storm</h1><div class="entry-content">' +
      paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
      '<div id="attachment_41" class="wp-caption aligncenter"><img src="/quay.jpg" alt="The quay">' +
      '<p class="wp-caption-text">Divers at work on the quay on Tuesday.</p></div>' +
      paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
      '</div></article></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('the first ship entered at dawn');
    expect(markdown).not.toContain('Divers at work on the quay');
  });

  it('drops a block of a picture and a text named a caption, and keeps a teaser whose picture links to its story', () => {
    const html =
      '<head><title>Harbour reopens after storm</title><meta property="og:type" content="article"></head><body>' +
      '<article><h1>Harbour reopens after storm</h1><div class="story">' +
      paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
      '<div class="photo"><p class="withoutCaption"><picture><img src="/quay.jpg" alt=""></picture></p>' +
      '<span class="newsCaption">Divers at work on the quay <span>(Image: GETTY)</span></span></div>' +
      paragraph('Divers spent the weekend clearing the channel, and the first ship entered at dawn.') +
      '<div class="photo"><a href="/ferries"><img src="/ferry.jpg" alt=""></a>' +
      '<span class="caption">Ferry crossings are cut to four a day until the ship is raised</span></div>' +
      '</div></article></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('the first ship entered at dawn');
    expect(markdown).not.toContain('Divers at work on the quay');
    expect(markdown).toContain('Ferry crossings are cut');
  });
});
