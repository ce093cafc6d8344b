import FolioLayout
import Testing

/// The three numberings of a book's pages convert in one place (`PageImage`): the first image
/// is the reader's page 1 and layout page 2, after the cover (0) and the endpaper (1).
@Suite struct PageImageTests {
    @Test func theNumberingsConvertOneWay() {
        let first = PageImage(index: 0)
        #expect(first.number == 1 && first.layoutPage == 2)
        #expect(PageImage(layoutPage: 0) == nil && PageImage(layoutPage: 1) == nil && PageImage(layoutPage: 2) == first)
        #expect(PageImage(number: 7) == PageImage(index: 6) && PageImage(index: 6).layoutPage == 8)
        #expect(FaceContent.page(3, 9).image == PageImage(index: 7) && FaceContent.cover(3).image == nil)
        #expect(PageImage(index: 4) < PageImage(index: 5))
    }

    /// A layout page steps as pages do, saturating at `Int`'s bounds; even pages are sheet fronts.
    @Test func layoutPagesStepAndKnowTheirSide() {
        let page: LayoutPage = 7
        #expect(page.advanced(by: 2) == LayoutPage(9) && page.advanced(by: -7) == .cover && LayoutPage(.max).advanced(by: 1).index == .max)
        #expect(!page.isFront && page.advanced(by: 1).isFront && LayoutPage.cover.isFront)
        #expect(LayoutPage(3) < 4 && "\(page)" == "7")
        #expect(BookInfo(imageCount: 5).lastPage == PageImage(index: 4).layoutPage)
    }

    /// A number no book has (typed as `--page`, a job's "page") stays one past every book's
    /// pages, for the checks that refuse it, instead of overflowing.
    @Test func numbersAtIntsBoundsStayThere() {
        #expect(PageImage(number: .max).layoutPage.index == .max && PageImage(number: .max).number == .max)
        #expect(PageImage(number: .min).index == .min && PageImage(number: .min).number == .min + 1)
        #expect(PageImage(index: .max - 1).layoutPage.index == .max && PageImage(index: .max - 2).layoutPage.index == .max)
    }
}
